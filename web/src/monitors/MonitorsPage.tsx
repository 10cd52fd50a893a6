import { useState } from 'react';
import { del, get, post } from '../api/client';
import type { Monitor } from '../api/types';
import { useLoad } from '../admin/useLoad';
import { ErrorLine, PageHeader } from '../admin/parts';
import { Button } from '../ui/Button';
import { relativeTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { Modal } from '../ui/Modal';
import { useToast } from '../ui/toast';
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

/** Monitors: scheduled searches with a condition; their state, last run, and what to do with them. */
export function MonitorsPage() {
  const { data, error, reload } = useLoad(() => get<{ monitors: Monitor[] }>('/api/monitors'));
  const llm = useLoad(() => get<{ configured: boolean }>('/api/llm'));
  const toast = useToast();
  const [editing, setEditing] = useState<Monitor | 'new' | null>(null);
  const [history, setHistory] = useState<Monitor | null>(null);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const monitors = data?.monitors ?? [];

  const act = async (m: Monitor, what: string, fn: () => Promise<unknown>, done: (r: unknown) => string) => {
    setBusy(`${m.id}:${what}`);
    try {
      const r = await fn();
      toast('ok', done(r));
      reload();
    } catch (e) {
      toast('error', (e as Error).message);
    } finally {
      setBusy(null);
    }
  };
  const runNow = (m: Monitor) =>
    act(
      m,
      'run',
      () => post<{ outcome: string; firing?: string[]; error?: { message: string } }>(`/api/monitors/${m.id}/run`),
      (r) => {
        const o = r as { outcome: string; firing?: string[]; error?: { message: string } };
        if (o.outcome === 'error') throw new Error(`Run failed: ${o.error?.message}`);
        return o.firing?.length ? `${m.name}: firing for ${o.firing.join(', ')}` : `${m.name}: condition not met`;
      },
    );

  return (
    <div className="monitors-page">
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
      <div className="card">
        <table className="admin-table monitors-table" data-testid="monitors">
          <thead>
            <tr>
              <th>Monitor</th>
              <th>Condition</th>
              <th>Schedule</th>
              <th>State</th>
              <th>Last run</th>
              <th className="actions-col">Actions</th>
            </tr>
          </thead>
          <tbody>
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
                      {m.firing
                        .map((f) => (f.group === '*' ? `value ${f.value}` : `${f.group} (${f.value})`))
                        .join(', ')}
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
                          : `${m.lastRun.rows ?? 0} rows, ${m.lastRun.durationMs} ms`}
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
                  <Button
                    size="sm"
                    variant="ghost"
                    icon="trash"
                    aria-label={`Delete ${m.name}`}
                    title="Delete"
                    onClick={() => setDeleting(m)}
                  />
                </td>
              </tr>
            ))}
            {data && monitors.length === 0 && (
              <tr>
                <td colSpan={6} className="empty-row">
                  <Icon name="activity" /> No monitors yet. A monitor runs a search every few minutes and posts to a
                  webhook (Slack, PagerDuty, your own) when its condition starts or stops holding.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {editing && (
        <MonitorEditor
          monitor={editing === 'new' ? undefined : editing}
          aiAvailable={llm.data?.configured ?? false}
          onClose={() => setEditing(null)}
          onSaved={() => (setEditing(null), reload())}
        />
      )}
      {history && <MonitorHistory monitor={history} onClose={() => setHistory(null)} />}
      {deleting && (
        <Modal
          title={`Delete monitor "${deleting.name}"?`}
          onClose={() => setDeleting(null)}
          footer={
            <>
              <Button onClick={() => setDeleting(null)}>Cancel</Button>
              <Button
                variant="danger"
                onClick={() =>
                  void act(
                    deleting,
                    'delete',
                    () => del(`/api/monitors/${deleting.id}`),
                    () => `${deleting.name} deleted`,
                  ).then(() => setDeleting(null))
                }
              >
                Delete
              </Button>
            </>
          }
        >
          <p>It stops running at once. Its past runs stay in the service log.</p>
        </Modal>
      )}
    </div>
  );
}
