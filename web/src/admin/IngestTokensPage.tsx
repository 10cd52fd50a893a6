import { useState, type FormEvent } from 'react';
import { api, get } from '../api/client';
import type { Env, IngestToken } from '../api/types';
import { Button } from '../ui/Button';
import { relativeTime } from '../ui/format';
import { Modal } from '../ui/Modal';
import { CreatedCell, DeleteCredential, useCredentials } from './credentials';
import { ErrorLine, PageHeader, SecretDialog, StateBadge } from './parts';
import { useLoad } from './useLoad';

export function IngestTokensPage() {
  const c = useCredentials<IngestToken>('/api/admin/ingest-tokens', 'ingestTokens', 'Token');
  const tokens = c.items;
  return (
    <div className="admin-page">
      <PageHeader
        title="Ingest tokens"
        description="Credentials for shippers (Filebeat, Vector, Fluent Bit, OpenTelemetry, syslog). A token can only push logs, into the environment and index it is pinned to."
        action={
          <Button variant="primary" icon="plus" onClick={() => c.setCreating(true)}>
            Create token
          </Button>
        }
      />
      <ErrorLine error={c.error} />
      <div className="card">
        <table className="admin-table" data-testid="ingest-tokens">
          <thead>
            <tr>
              <th>Name</th>
              <th>Environment</th>
              <th>Index</th>
              <th>Token</th>
              <th>Last used</th>
              <th>State</th>
              <th>Created</th>
              <th className="actions-col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <td className="strong">{t.name}</td>
                <td>{t.env}</td>
                <td>{t.index ?? <span className="muted">chosen by the request</span>}</td>
                <td className="mono small">svi_…{t.lastFour}</td>
                <td>{relativeTime(t.lastUsedAt)}</td>
                <td>
                  <StateBadge state={t.state} />
                </td>
                <CreatedCell at={t.createdAt} by={t.createdBy} />
                <td className="actions-col">
                  <Button size="sm" onClick={() => c.setEnabled(t, t.state === 'disabled')}>
                    {t.state === 'disabled' ? 'Enable' : 'Disable'}
                  </Button>
                  <Button
                    size="sm"
                    variant="ghost"
                    icon="trash"
                    aria-label={`Delete ${t.name}`}
                    title="Delete"
                    onClick={() => c.setDeleting(t)}
                  />
                </td>
              </tr>
            ))}
            {c.loaded && tokens.length === 0 && (
              <tr>
                <td colSpan={8} className="empty-row">
                  No ingest tokens yet. Create one for each shipper.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {c.creating && <CreateTokenDialog onClose={() => c.setCreating(false)} onCreated={c.onCreated} />}
      {c.created?.secret && (
        <SecretDialog title={`Token "${c.created.name}" created`} secret={c.created.secret} onClose={c.closeSecret}>
          <p className="muted small">
            Try it:{' '}
            <code>
              curl {location.origin}/api/ingest -H 'authorization: Bearer {c.created.secret.slice(0, 8)}…' -d '
              {'{"message":"hello"}'}'
            </code>
          </p>
        </SecretDialog>
      )}
      {c.deleting && (
        <DeleteCredential
          noun="Ingest token"
          item={c.deleting}
          consequence="Shippers using it are refused at once."
          onDelete={c.remove}
          onClose={() => c.setDeleting(null)}
        />
      )}
    </div>
  );
}

function CreateTokenDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (t: IngestToken) => void }) {
  const envs = useLoad(() => get<{ envs: Env[] }>('/api/admin/envs'));
  const [name, setName] = useState('');
  const [env, setEnv] = useState('default');
  const [index, setIndex] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      onCreated(
        await api<IngestToken>('POST', '/api/admin/ingest-tokens', { body: { name, env, index: index || undefined } }),
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <Modal
      title="Create ingest token"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" type="submit" form="create-token" disabled={!name.trim()}>
            Create token
          </Button>
        </>
      }
    >
      <form id="create-token" className="form" onSubmit={submit}>
        <ErrorLine error={error} />
        <label className="field">
          <span>Name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            autoFocus
            aria-label="Name"
            placeholder="web-filebeat"
          />
        </label>
        <label className="field">
          <span>Environment</span>
          <select value={env} onChange={(e) => setEnv(e.target.value)} aria-label="Environment">
            {(envs.data?.envs ?? [{ name: 'default' } as Env])
              .filter((x) => !x.name.startsWith('_'))
              .map((x) => (
                <option key={x.name}>{x.name}</option>
              ))}
          </select>
        </label>
        <label className="field">
          <span>Index (optional: when empty, each request chooses, else "main")</span>
          <input value={index} onChange={(e) => setIndex(e.target.value)} aria-label="Index" placeholder="web" />
        </label>
      </form>
    </Modal>
  );
}
