import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { api, get, post } from '../api/client';
import type { FieldInfo, FieldsResult, Monitor, MonitorPreview } from '../api/types';
import type { QueryEditorHandle } from '../search/QueryEditor';
import { QueryField } from '../search/QueryField';
import { useCatalog } from '../search/useCatalog';
import { Button } from '../ui/Button';
import { FormDialog } from '../ui/Modal';
import { useAsyncAction } from '../ui/useAsyncAction';
import {
  bodyOf,
  draftOf,
  fieldErrorOf,
  type Draft,
  type FieldError,
  type FieldKey,
  type MonitorPrefill,
} from './draft';
import { ConditionPart, NotifyPart, PreviewResult, TextPart, WherePickers, type PartProps } from './MonitorParts';

/** The field names and top values completion offers, from the last day of the monitor's env and index. */
function useFieldNames(env: string, index: string): FieldInfo[] {
  const [fields, setFields] = useState<FieldInfo[]>([]);
  useEffect(() => {
    const ac = new AbortController();
    get<FieldsResult>('/api/fields', { q: '*', env, index: index || undefined, from: '-24h', top: 5 }, ac.signal).then(
      (r) => setFields(r.fields),
      () => setFields([]),
    );
    return () => ac.abort();
  }, [env, index]);
  return fields;
}

/**
 * Create or change a monitor, with a preview of what it would find right now. `prefill` is a
 * search's query, env, index and range ("Save as monitor"). A server error that names a field
 * (`error.field`) shows under that field, which takes the focus; others stay at the top.
 */
export function MonitorEditor({
  monitor,
  prefill,
  aiAvailable,
  onClose,
  onSaved,
}: {
  monitor?: Monitor;
  prefill?: MonitorPrefill;
  aiAvailable: boolean;
  onClose: () => void;
  onSaved: (m: Monitor) => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(monitor, prefill));
  const action = useAsyncAction();
  const [preview, setPreview] = useState<MonitorPreview | null>(null);
  const [err, setErr] = useState<FieldError | null>(null);
  const [confirming, setConfirming] = useState(false);
  const { envs, language } = useCatalog();
  const fields = useFieldNames(d.env, d.index);
  const completion = useCallback(() => ({ language, fields }), [language, fields]);
  const editor = useRef<QueryEditorHandle>(null);
  const uid = useId();
  // a search over all envs: a monitor watches one, `default` (draftOf) unless this user cannot read
  // it, then the first env the catalog lists, so the new monitor does not start on an env it cannot
  // see. Set while rendering the catalog's answer (React's "adjust state when a prop changes").
  const allEnvs = !monitor && prefill?.env === '*';
  const [envsSeen, setEnvsSeen] = useState(envs);
  if (envs !== envsSeen) {
    setEnvsSeen(envs);
    const first = envs[0]?.name;
    if (allEnvs && first && !envs.some((e) => e.name === 'default'))
      setD((cur) => (cur.env === 'default' ? { ...cur, env: first } : cur));
  }
  const idOf = useCallback((k: FieldKey) => `${uid}${k}`, [uid]);

  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setD((cur) => ({ ...cur, [k]: v }));
    // the message was about what the field held; a changed field is judged again on the next save
    setErr((e) => (e?.key === k ? null : e));
    if (k === 'webhook') setConfirming(false);
  };
  // a new error takes the focus to its field, as a screen reader user needs and a typist expects
  useEffect(() => {
    if (!err) return;
    if (err.key === 'query') editor.current?.focus();
    else document.getElementById(idOf(err.key))?.focus();
  }, [err, idOf]);
  /** An error naming a field goes under it; any other is thrown to the dialog's error line. */
  const atField = (e: unknown) => {
    const f = fieldErrorOf(e, d.kind);
    if (!f) throw e;
    setErr(f);
  };

  const saved = monitor?.destinations.map((x) => x.webhook) ?? [];
  const bare = !d.webhook.trim() && saved.length === 0;
  const save = async () => {
    // a monitor nobody hears from is allowed, but not by accident: the first save asks
    if (bare && !confirming) {
      setConfirming(true);
      return;
    }
    setErr(null);
    try {
      const body = bodyOf(d, monitor !== undefined);
      onSaved(
        monitor
          ? await api<Monitor>('PATCH', `/api/monitors/${monitor.id}`, { body })
          : await post<Monitor>('/api/monitors', body),
      );
    } catch (e) {
      atField(e);
    }
  };
  const runPreview = () =>
    action.run(async () => {
      setPreview(null);
      setErr(null);
      const body = { ...bodyOf(d, false), destinations: undefined, name: d.name || 'preview' };
      try {
        setPreview(await post<MonitorPreview>('/api/monitors/preview', body));
      } catch (e) {
        atField(e);
      }
    });

  const verb = monitor ? 'Save' : 'Create';
  const part: PartProps = { d, set, err, idOf };
  const queryError = err?.key === 'query' ? err : null;
  return (
    <FormDialog
      id="monitor-form"
      wide
      title={monitor ? `Edit monitor "${monitor.name}"` : prefill ? 'Save search as monitor' : 'New monitor'}
      onClose={onClose}
      onSubmit={save}
      action={action}
      formClassName="monitor-form"
      submitLabel={bare && confirming ? `${verb} without destination` : monitor ? 'Save' : 'Create monitor'}
      canSubmit={!!d.name.trim() && !!d.query.trim()}
      extraButtons={
        <>
          <Button onClick={runPreview} icon="play" disabled={action.busy || !d.query.trim()}>
            Preview
          </Button>
          <span className="grow" />
        </>
      }
    >
      <TextPart k="name" label="Name" placeholder="ssh brute force" autoFocus p={part} />
      <QueryField
        ref={editor}
        label="Search"
        id={idOf('query')}
        placeholder='sshd "Failed password" | stats count by host'
        value={d.query}
        onChange={(q) => set('query', q)}
        onRun={runPreview}
        error={queryError}
        completion={completion}
      />
      <div className="grid-4">
        <WherePickers {...part} envs={envs} />
        <TextPart k="every" label="Every" placeholder="5m" p={part} />
        <TextPart k="window" label="Over the last" placeholder="15m" p={part} />
      </div>
      {allEnvs && (
        <p className="muted small" data-testid="monitor-env-note">
          The search covers all environments; a monitor watches one: <strong>{d.env}</strong>. Pick another above if
          needed.
        </p>
      )}
      <ConditionPart p={part} aiAvailable={aiAvailable} />
      <NotifyPart p={part} saved={saved} bare={bare} confirming={confirming} />
      {preview && <PreviewResult p={preview} />}
    </FormDialog>
  );
}
