import { useState, type FormEvent } from 'react';
import { api, del, get, patch } from '../api/client';
import type { CatalogEnv, Env, Settings } from '../api/types';
import { Button } from '../ui/Button';
import { count, shortTime } from '../ui/format';
import { ConfirmDialog, Modal } from '../ui/Modal';
import { useToast } from '../ui/toast';
import { ErrorLine, PageHeader } from './parts';
import { useLoad } from './useLoad';

const PERMANENT = new Set(['default', '_system']);

export function EnvsPage() {
  const envs = useLoad(() => get<{ envs: Env[] }>('/api/admin/envs'));
  const catalog = useLoad(() => get<{ envs: CatalogEnv[] }>('/api/catalog'));
  const settings = useLoad(() => get<Settings>('/api/admin/settings'));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Env | null>(null);
  const [deleting, setDeleting] = useState<Env | null>(null);
  const toast = useToast();
  const stats = new Map((catalog.data?.envs ?? []).map((e) => [e.name, e]));
  const globalDays = settings.data?.effective.retentionDefaultDays ?? null;
  return (
    <div className="admin-page">
      <PageHeader
        title="Environments"
        description="Each environment holds its own indexes, tokens and retention. Events go into the environment their ingest token is pinned to."
        action={
          <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
            Create environment
          </Button>
        }
      />
      <ErrorLine error={envs.error} />
      <div className="card">
        <table className="admin-table" data-testid="envs">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Events</th>
              <th>Indexes</th>
              <th>Retention</th>
              <th>Created</th>
              <th className="actions-col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(envs.data?.envs ?? []).map((e) => {
              const s = stats.get(e.name);
              return (
                <tr key={e.name}>
                  <td className="strong">{e.name}</td>
                  <td className="num">{s ? count(s.events) : '—'}</td>
                  <td className="small">
                    {s && s.indexes.length > 0 ? (
                      s.indexes.map((i) => i.name).join(', ')
                    ) : (
                      <span className="muted">none yet</span>
                    )}
                  </td>
                  <td>
                    {e.retentionDays ? (
                      `${e.retentionDays} days`
                    ) : (
                      <span className="muted">{globalDays ? `default (${globalDays} days)` : 'forever'}</span>
                    )}
                  </td>
                  <td>{shortTime(e.createdAt)}</td>
                  <td className="actions-col">
                    <Button size="sm" onClick={() => setEditing(e)}>
                      Retention
                    </Button>
                    {!PERMANENT.has(e.name) && (
                      <Button
                        size="sm"
                        variant="ghost"
                        icon="trash"
                        aria-label={`Delete ${e.name}`}
                        title="Delete"
                        onClick={() => setDeleting(e)}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {(creating || editing) && (
        <EnvDialog
          env={editing}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onSaved={() => {
            setCreating(false);
            setEditing(null);
            envs.reload();
            catalog.reload();
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete environment"
          danger
          confirmLabel="Delete environment"
          message={
            <>
              Delete <strong>{deleting.name}</strong>? Ingest into it is refused from then on. Events already stored are
              kept, under the global retention.
            </>
          }
          onConfirm={async () => {
            try {
              await del(`/api/admin/envs/${encodeURIComponent(deleting.name)}`);
              envs.reload();
            } catch (e) {
              toast('error', (e as Error).message);
            }
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

function EnvDialog({ env, onClose, onSaved }: { env: Env | null; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(env?.name ?? '');
  const [days, setDays] = useState(env?.retentionDays ? String(env.retentionDays) : '');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const retentionDays = days ? Number(days) : null;
      if (env) await patch(`/api/admin/envs/${encodeURIComponent(env.name)}`, { retentionDays });
      else await api('POST', '/api/admin/envs', { body: retentionDays ? { name, retentionDays } : { name } });
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal
      title={env ? `Retention of ${env.name}` : 'Create environment'}
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="env-form" disabled={!name.trim()}>
            {env ? 'Save' : 'Create'}
          </Button>
        </>
      }
    >
      <form id="env-form" className="form" onSubmit={submit}>
        <ErrorLine error={error} />
        {!env && (
          <label className="field">
            <span>Name</span>
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              autoFocus
              aria-label="Name"
              placeholder="prod"
            />
          </label>
        )}
        <label className="field">
          <span>Retention in days (empty: the global default)</span>
          <input
            type="number"
            min={1}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            aria-label="Retention days"
          />
        </label>
      </form>
    </Modal>
  );
}
