import { useState } from 'react';
import { del, get, post } from '../api/client';
import type { Monitor } from '../api/types';
import { useLoad } from '../admin/useLoad';
import { AdminTable, PageHeader } from '../admin/parts';
import { ErrorLine } from '../ui/ErrorLine';
import { Button, DeleteButton } from '../ui/Button';
import { duration, relativeTime, rowsText } from '../ui/format';
import { Icon } from '../ui/icons';
import { ConfirmDelete } from '../ui/Modal';
import { useNotifyAction } from '../ui/toast';
import { MonitorEditor } from './MonitorEditor';
import { MonitorHistory } from './MonitorHistory';

const STATE_TEXT: Record<Monitor['state'], string> = {
  ok: 'OK',
  firing: 'Firing',
  error: 'Error',
  pending: 'Not run yet',
};

export function conditionText(m: Pick<Monitor, 'condition'>): string {
  return 'ai' in m.condition ? `AI: ${m.condition.ai}` : m.condition.threshold;
}

/** What POST /api/monitors/:id/run answers. */
interface RunAnswer {
  outcome: string;
  firing?: string[];
  error?: { message: string };
}

/** Monitors: scheduled searches with a condition; their state, last run, and what to do with them. */
export function MonitorsPage() {
  const { data, error, reload } = useLoad(() => get<{ monitors: Monitor[] }>('/api/monitors'));
  const llm = useLoad(() => get<{ configured: boolean }>('/api/llm'));
  const [editing, setEditing] = useState<Monitor | 'new' | null>(null);
  const [history, setHistory] = useState<Monitor | null>(null);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const monitors = data?.monitors ?? [];

  const notify = useNotifyAction(reload);
  /** One change to `m` at a time: its button is disabled until it is done. */
  const act = async <R,>(m: Monitor, what: string, fn: () => Promise<R>, done: (r: R) => string) => {
    setBusy(`${m.id}:${what}`);
    await notify(fn, done);
    setBusy(null);
  };
  const runNow = (m: Monitor) =>
    act(
      m,
      'run',
      () => post<RunAnswer>(`/api/monitors/${m.id}/run`),
      (o) => {
        if (o.outcome === 'error') throw new Error(`Run failed: ${o.error?.message}`);
        return o.firing?.length ? `${m.name}: firing for ${o.firing.join(', ')}` : `${m.name}: condition not met`;
      },
    );

  return (
    <div className="list-page">
      <PageHeader
        title="Monitors"
        description="Searches that run on a schedule and tell a webhook when their condition starts or stops holding."
        action={
          <Button variant="primary" icon="plus" onClick={() => setEditing('new')}>
            New monitor
          </Button>
        }
      />
      <ErrorLine error={error} />
      <AdminTable
        testId="monitors"
        className="monitors-table"
        columns={['Monitor', 'Condition', 'Schedule', 'State', 'Last run']}
        empty={
          data &&
          monitors.length === 0 && (
            <>
              <Icon name="activity" /> No monitors yet. A monitor runs a search every few minutes and posts to a webhook
              (Slack, PagerDuty, your own) when its condition starts or stops holding.
            </>
          )
        }
      >
        {monitors.map((m) => (
          <tr key={m.id} data-monitor={m.name} className={m.enabled ? '' : 'row-off'}>
            <td className="name-cell">
              <div className="strong">{m.name}</div>
              <div className="mono small clamp" title={m.query}>
                {m.query}
              </div>
              <div className="muted small">
                {m.env}
                {m.index ? ` / ${m.index}` : ''} · by {m.owner.name}
              </div>
            </td>
            <td>
              <span className={'ai' in m.condition ? 'badge badge-ai' : 'mono small'}>
                {'ai' in m.condition ? 'AI' : m.condition.threshold}
              </span>
              {'ai' in m.condition && <div className="small clamp">{m.condition.ai}</div>}
            </td>
            <td className="small">
              every {m.every}
              <div className="muted">
                over {m.window}
                {m.cooldown !== '0s' ? `, quiet ${m.cooldown}` : ''}
              </div>
            </td>
            <td>
              {m.enabled ? (
                <span className={`badge badge-mon-${m.state}`}>{STATE_TEXT[m.state]}</span>
              ) : (
                <span className="badge badge-disabled">Off</span>
              )}
              {m.firing.length > 0 && (
                <div className="small clamp" title={m.firing.map((f) => f.group).join(', ')}>
                  {m.firing.map((f) => (f.group === '*' ? `value ${f.value}` : `${f.group} (${f.value})`)).join(', ')}
                </div>
              )}
            </td>
            <td className="small" title={m.lastRun?.error ?? m.lastRun?.at ?? ''}>
              {m.lastRun ? (
                <>
                  {relativeTime(m.lastRun.at)}
                  <div className={m.lastRun.outcome === 'error' ? 'text-danger clamp' : 'muted'}>
                    {m.lastRun.outcome === 'error'
                      ? m.lastRun.error
                      : `${rowsText(m.lastRun.rows ?? 0)}, ${duration(m.lastRun.durationMs)}`}
                  </div>
                </>
              ) : (
                <span className="muted">never</span>
              )}
            </td>
            <td className="actions-col">
              <Button size="sm" icon="play" onClick={() => void runNow(m)} disabled={busy === `${m.id}:run`}>
                Run now
              </Button>
              <Button size="sm" onClick={() => setHistory(m)}>
                History
              </Button>
              <Button size="sm" onClick={() => setEditing(m)}>
                Edit
              </Button>
              <Button
                size="sm"
                onClick={() =>
                  void act(
                    m,
                    'toggle',
                    () => post(`/api/monitors/${m.id}/${m.enabled ? 'disable' : 'enable'}`),
                    () => `${m.name} ${m.enabled ? 'switched off' : 'switched on'}`,
                  )
                }
              >
                {m.enabled ? 'Disable' : 'Enable'}
              </Button>
              <DeleteButton name={m.name} onClick={() => setDeleting(m)} />
            </td>
          </tr>
        ))}
      </AdminTable>
      {editing && (
        <MonitorEditor
          monitor={editing === 'new' ? undefined : editing}
          aiAvailable={llm.data?.configured ?? false}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {history && <MonitorHistory monitor={history} onClose={() => setHistory(null)} />}
      {deleting && (
        <ConfirmDelete
          what="monitor"
          name={deleting.name}
          confirmLabel="Delete"
          consequence="It stops running at once. Its past runs stay in the service log."
          onConfirm={() =>
            act(
              deleting,
              'delete',
              () => del(`/api/monitors/${deleting.id}`),
              () => `${deleting.name} deleted`,
            )
          }
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
