import { get } from '../api/client';
import { useLoad } from '../admin/useLoad';
import { useToast } from '../ui/toast';
import type { MonitorPrefill } from './draft';
import { MonitorEditor } from './MonitorEditor';

/**
 * A new monitor made from a search: the search page's "Save as monitor" and the saved searches'
 * "Create monitor" both open this, so the editor, its AI option and the toast on save are the same.
 */
export function MonitorFromSearch({ prefill, onClose }: { prefill: MonitorPrefill; onClose: () => void }) {
  const toast = useToast();
  // AI conditions only when an LLM is configured (the monitors page asks the same)
  const llm = useLoad(() => get<{ configured: boolean }>('/api/llm'));
  return (
    <MonitorEditor
      prefill={prefill}
      aiAvailable={llm.data?.configured ?? false}
      onClose={onClose}
      onSaved={(m) => {
        onClose();
        toast('ok', `Monitor "${m.name}" created: it runs every ${m.every} (see Monitors)`);
      }}
    />
  );
}
