import { useState } from 'react';
import { api, del, get, patch } from '../api/client';
import type { CatalogEnv, Env, Settings } from '../api/types';
import { Button, DeleteButton } from '../ui/Button';
import { TextField } from '../ui/Field';
import { count, shortTime } from '../ui/format';
import { ConfirmDelete, FormDialog } from '../ui/Modal';
import { useNotifyAction } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import { AdminTable, PageHeader } from './parts';
import { ErrorLine } from '../ui/ErrorLine';
import { useLoad } from './useLoad';

const PERMANENT = new Set(['default', '_system']);

export function EnvsPage() {
  const envs = useLoad(() => get<{ envs: Env[] }>('/api/admin/envs'));
  const catalog = useLoad(() => get<{ envs: CatalogEnv[] }>('/api/catalog'));
  const settings = useLoad(() => get<Settings>('/api/admin/settings'));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Env | null>(null);
  const [deleting, setDeleting] = useState<Env | null>(null);
  const notify = useNotifyAction(envs.reload);
  const stats = new Map((catalog.data?.envs ?? []).map((e) => [e.name, e]));
  const globalDays = settings.data?.effective.retentionDefaultDays ?? null;
  return (
    <div className="admin-page">
      <PageHeader
        title="Environments"
        description="Each environment holds its own indexes, tokens, retention and limits. Events go into the environment their ingest token is pinned to. Limits apply on each node."
        action={
          <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
            Create environment
          </Button>
        }
      />
      <ErrorLine error={envs.error} />
      <AdminTable
        testId="envs"
        columns={['Name', { label: 'Events', className: 'num' }, 'Indexes', 'Retention', 'Limits', 'Created']}
      >
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
              <td className="small" data-testid="env-limits">
                {limitsText(e) || <span className="muted">none</span>}
              </td>
              <td>{shortTime(e.createdAt)}</td>
              <td className="actions-col">
                <Button size="sm" onClick={() => setEditing(e)} aria-label={`Edit ${e.name}`}>
                  Edit
                </Button>
                {!PERMANENT.has(e.name) && <DeleteButton name={e.name} onClick={() => setDeleting(e)} />}
              </td>
            </tr>
          );
        })}
      </AdminTable>
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
        <ConfirmDelete
          what="environment"
          name={deleting.name}
          consequence="Ingest into it is refused from then on. Events already stored are kept, under the global retention."
          onConfirm={() => notify(() => del(`/api/admin/envs/${encodeURIComponent(deleting.name)}`))}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

type LimitField = 'ingestEventsPerSec' | 'ingestBytesPerSec' | 'maxSearchesPerUser';

/** The limit fields of the dialog, in order: the API field, its label and the unit shown in the table. */
const LIMITS: { field: LimitField; label: string; unit: string }[] = [
  { field: 'ingestEventsPerSec', label: 'Ingest events per second', unit: 'events/s' },
  { field: 'ingestBytesPerSec', label: 'Ingest bytes per second', unit: 'bytes/s' },
  { field: 'maxSearchesPerUser', label: 'Searches at once per user or key', unit: 'searches per user' },
];

function limitsText(e: Env): string {
  return LIMITS.filter((l) => e[l.field] !== undefined)
    .map((l) => `${count(e[l.field]!)} ${l.unit}`)
    .join(', ');
}

function EnvDialog({ env, onClose, onSaved }: { env: Env | null; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(env?.name ?? '');
  const [days, setDays] = useState(env?.retentionDays ? String(env.retentionDays) : '');
  const [limits, setLimits] = useState<Record<LimitField, string>>(
    () =>
      Object.fromEntries(
        LIMITS.map((l) => [l.field, env?.[l.field] !== undefined ? String(env[l.field]) : '']),
      ) as Record<LimitField, string>,
  );
  const action = useAsyncAction();
  const submit = async () => {
    const retentionDays = days ? Number(days) : null;
    // an empty field removes the limit (null); the server refuses 0 and negative numbers, naming the field
    const values = Object.fromEntries(LIMITS.map((l) => [l.field, limits[l.field] ? Number(limits[l.field]) : null]));
    if (env) await patch(`/api/admin/envs/${encodeURIComponent(env.name)}`, { retentionDays, ...values });
    else {
      const set = Object.fromEntries(Object.entries({ retentionDays, ...values }).filter(([, v]) => v !== null));
      await api('POST', '/api/admin/envs', { body: { name, ...set } });
    }
    onSaved();
  };
  return (
    <FormDialog
      id="env-form"
      title={env ? `Environment ${env.name}` : 'Create environment'}
      onClose={onClose}
      onSubmit={submit}
      action={action}
      submitLabel={env ? 'Save' : 'Create'}
      canSubmit={!!name.trim()}
    >
      {!env && (
        <TextField
          label="Name"
          value={name}
          onChange={setName}
          required
          autoFocus
          aria-label="Name"
          placeholder="prod"
        />
      )}
      <TextField
        label="Retention in days (empty: the global default)"
        type="number"
        min={1}
        value={days}
        onChange={setDays}
        aria-label="Retention days"
      />
      {LIMITS.map((l) => (
        <TextField
          key={l.field}
          label={`${l.label} (empty: no limit)`}
          type="number"
          min={1}
          value={limits[l.field]}
          onChange={(v) => setLimits((old) => ({ ...old, [l.field]: v }))}
          aria-label={l.label}
        />
      ))}
    </FormDialog>
  );
}
