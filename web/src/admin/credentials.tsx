import { useState, type ReactNode } from 'react';
import { del, get, post } from '../api/client';
import { Button, DeleteButton } from '../ui/Button';
import { ErrorLine } from '../ui/ErrorLine';
import { shortDate } from '../ui/format';
import { ConfirmDelete } from '../ui/Modal';
import { useNotifyAction } from '../ui/toast';
import { AdminTable, PageHeader, SecretDialog, StateBadge, type Column } from './parts';
import { useLoad } from './useLoad';

/** What an API key and an ingest token have in common, as the admin API lists them. */
export interface Credential {
  id: string;
  name: string;
  state: 'enabled' | 'disabled' | 'expired';
  createdAt: string;
  createdBy: string;
  /** Only in the answer to a create: shown once. */
  secret?: string;
}

/** What tells the API keys page from the ingest tokens page; the rest is CredentialsPage. */
export interface CredentialKind<T extends Credential> {
  /** The list, answered as `{[listKey]: T[]}`; one credential is `${path}/${id}`. */
  path: string;
  listKey: string;
  title: string;
  description: ReactNode;
  testId: string;
  /** "Key", "Token": on the create button and in notices. */
  short: string;
  /** "API key", "Ingest token": in the delete confirmation. */
  noun: string;
  /** The heads of the columns before State and Created, and their cells. */
  columns: Column[];
  cells: (c: T) => ReactNode;
  /** Links or buttons before Enable/Disable. */
  actions?: (c: T) => ReactNode;
  empty: ReactNode;
  /** The create dialog; `onCreated` gets the create's answer, with its secret. */
  create: (props: { onClose: () => void; onCreated: (c: T) => void }) => ReactNode;
  /** How to use a new secret, under it. */
  usage: (secret: string) => ReactNode;
  /** What deleting one does, after "Delete <name>?". */
  consequence: string;
}

/**
 * The page of one kind of credential: the list, a create dialog whose answer shows the secret
 * once, enable/disable/delete with a notice, and the confirmation before a delete.
 */
export function CredentialsPage<T extends Credential>({ kind }: { kind: CredentialKind<T> }) {
  const { data, error, reload } = useLoad(() => get<Record<string, T[]>>(kind.path));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<T | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const notify = useNotifyAction(reload);
  const items = data?.[kind.listKey] ?? [];
  const setEnabled = (c: T, on: boolean) =>
    void notify(
      () => post(`${kind.path}/${c.id}/${on ? 'enable' : 'disable'}`),
      `${kind.short} "${c.name}" ${on ? 'enabled' : 'disabled'}`,
    );
  const onCreated = (c: T) => {
    setCreating(false);
    setCreated(c);
    reload();
  };
  return (
    <div className="admin-page">
      <PageHeader
        title={kind.title}
        description={kind.description}
        action={
          <Button variant="primary" icon="plus" onClick={() => setCreating(true)}>
            Create {kind.short.toLowerCase()}
          </Button>
        }
      />
      <ErrorLine error={error} />
      <AdminTable
        testId={kind.testId}
        columns={[...kind.columns, 'State', 'Created']}
        empty={data && items.length === 0 ? kind.empty : null}
      >
        {items.map((c) => (
          <tr key={c.id} data-key={c.name}>
            {kind.cells(c)}
            <td>
              <StateBadge state={c.state} />
            </td>
            <td title={c.createdAt}>
              <div>{shortDate(c.createdAt)}</div>
              <div className="muted small">by {c.createdBy}</div>
            </td>
            <td className="actions-col">
              {kind.actions?.(c)}
              {c.state === 'disabled' ? (
                <Button size="sm" onClick={() => setEnabled(c, true)}>
                  Enable
                </Button>
              ) : (
                <Button size="sm" onClick={() => setEnabled(c, false)} disabled={c.state === 'expired'}>
                  Disable
                </Button>
              )}
              <DeleteButton name={c.name} onClick={() => setDeleting(c)} />
            </td>
          </tr>
        ))}
      </AdminTable>
      {creating && kind.create({ onClose: () => setCreating(false), onCreated })}
      {created?.secret && (
        <SecretDialog
          title={`${kind.short} "${created.name}" created`}
          secret={created.secret}
          onClose={() => setCreated(null)}
        >
          {kind.usage(created.secret)}
        </SecretDialog>
      )}
      {deleting && (
        <ConfirmDelete
          what={kind.noun}
          name={deleting.name}
          consequence={kind.consequence}
          confirmLabel={`Delete ${kind.short.toLowerCase()}`}
          onConfirm={() => notify(() => del(`${kind.path}/${deleting.id}`), `${kind.short} "${deleting.name}" deleted`)}
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
