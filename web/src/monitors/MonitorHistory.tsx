import { get } from '../api/client';
import type { Monitor, MonitorHistoryEntry } from '../api/types';
import { useLoad } from '../admin/useLoad';
import { ErrorLine } from '../ui/ErrorLine';
import { duration, relativeTime, rowsText } from '../ui/format';
import { Modal } from '../ui/Modal';

function line(e: MonitorHistoryEntry): { label: string; cls: string; text: string } {
  switch (e.event) {
    case 'monitor_fired':
      return {
        label: 'fired',
        cls: 'badge-mon-firing',
        text: `${e.group === '*' ? '' : `${e.group}: `}value ${e.value}`,
      };
    case 'monitor_resolved':
      return { label: 'resolved', cls: 'badge-mon-ok', text: e.group === '*' ? '' : (e.group ?? '') };
    case 'monitor_destination_failed':
      return { label: 'not delivered', cls: 'badge-mon-error', text: `${e.destination ?? ''}: ${e.error ?? ''}` };
    default:
      if (e.outcome === 'error') return { label: 'error', cls: 'badge-mon-error', text: e.error ?? '' };
      if (e.outcome === 'missed')
        return { label: 'missed', cls: 'badge-mon-pending', text: `${e.missedRuns} scheduled runs while svc was down` };
      if (e.outcome === 'interrupted')
        return { label: 'interrupted', cls: 'badge-mon-pending', text: 'svc stopped during this run' };
      return {
        label: e.triggered ? 'met' : 'run',
        cls: e.triggered ? 'badge-mon-firing' : '',
        text: `${rowsText(e.rows ?? 0)} in ${duration(e.durationMs ?? 0)}${e.trigger === 'manual' ? ', run by hand' : ''}`,
      };
  }
}

/** What a monitor did lately, from its records in the service log. */
export function MonitorHistory({ monitor, onClose }: { monitor: Monitor; onClose: () => void }) {
  const { data, error } = useLoad(() => get<{ runs: MonitorHistoryEntry[] }>(`/api/monitors/${monitor.id}/runs`));
  return (
    <Modal wide title={`History of "${monitor.name}"`} onClose={onClose}>
      <ErrorLine error={error} />
      {data && data.runs.length === 0 && <p className="muted">Nothing yet: the monitor has not run.</p>}
      <ul className="history" data-testid="history">
        {data?.runs.map((e, i) => {
          const l = line(e);
          return (
            <li key={i}>
              <span className="muted small history-time" title={e.time}>
                {relativeTime(e.time)}
              </span>
              <span className={`badge ${l.cls}`}>{l.label}</span>
              <span className="small">{l.text}</span>
            </li>
          );
        })}
      </ul>
    </Modal>
  );
}
