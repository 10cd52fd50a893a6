import { useState } from 'react';
import { del, get, post } from '../api/client';
import { shortDate } from '../ui/format';
import { ConfirmDialog } from '../ui/Modal';
import { useToast } from '../ui/toast';
import { useLoad } from './useLoad';

interface Credential {
  id: string;
  name: string;
}

/**
 * What the API keys and ingest tokens pages share: the list under `path` (answered as
 * `{[listKey]: [...]}`), enable/disable/delete with a notice, and which one is being created,
 * was just created (its secret shown once) or is about to be deleted.
 */
export function useCredentials<T extends Credential>(path: string, listKey: string, noun: string) {
  const { data, error, reload } = useLoad(() => get<Record<string, T[]>>(path));
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<T | null>(null);
  const [deleting, setDeleting] = useState<T | null>(null);
  const toast = useToast();
  const act = async (call: () => Promise<unknown>, done: string) => {
    try {
      await call();
      toast('ok', done);
      reload();
    } catch (e) {
      toast('error', (e as Error).message);
    }
  };
  return {
    items: data?.[listKey] ?? [],
    loaded: data !== null,
    error,
    creating,
    setCreating,
    created,
    /** A create answered: show its secret once and list it. */
    onCreated: (c: T) => {
      setCreating(false);
      setCreated(c);
      reload();
    },
    closeSecret: () => setCreated(null),
    deleting,
    setDeleting,
    setEnabled: (c: T, on: boolean) =>
      act(
        () => post(`${path}/${c.id}/${on ? 'enable' : 'disable'}`),
        `${noun} "${c.name}" ${on ? 'enabled' : 'disabled'}`,
      ),
    remove: (c: T) => act(() => del(`${path}/${c.id}`), `${noun} "${c.name}" deleted`),
  };
}

export function CreatedCell({ at, by }: { at: string; by: string }) {
  return (
    <td title={at}>
      <div>{shortDate(at)}</div>
      <div className="muted small">by {by}</div>
    </td>
  );
}

/** "Delete key X? …" with the consequence spelled out. */
export function DeleteCredential<T extends Credential>({
  noun,
  item,
  consequence,
  onDelete,
  onClose,
}: {
  noun: string;
  item: T;
  consequence: string;
  onDelete: (c: T) => Promise<void>;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Delete ${noun.toLowerCase()}`}
      danger
      confirmLabel={`Delete ${noun.toLowerCase().split(' ').pop()}`}
      message={
        <>
          Delete <strong>{item.name}</strong>? {consequence}
        </>
      }
      onConfirm={() => onDelete(item)}
      onClose={onClose}
    />
  );
}
