import { useState } from 'react';
import { Link } from 'wouter';
import { del, get, patch, post } from '../api/client';
import type { SavedSearch } from '../api/types';
import { AdminTable, PageHeader } from '../admin/parts';
import { useLoad } from '../admin/useLoad';
import { MonitorFromSearch } from '../monitors/MonitorFromSearch';
import { Button, DeleteButton } from '../ui/Button';
import { ErrorLine } from '../ui/ErrorLine';
import { NameFields } from './NameFields';
import { relativeTime } from '../ui/format';
import { Icon } from '../ui/icons';
import { ListFilter } from '../ui/ListFilter';
import { ConfirmDelete, FormDialog } from '../ui/Modal';
import { useNotifyAction } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import { monitorPrefillOf, savedRangeLabel, searchHref, viewLabel } from './saved';
import '../styles/saved.css';

type Whose = 'all' | 'mine' | 'others';

/** Saved searches: the caller's own and the shared ones, the most recently used first (as the API sorts them). */
export function SavedSearchesPage() {
  const { data, error, reload } = useLoad(() => get<{ savedSearches: SavedSearch[] }>('/api/saved-searches'));
  const [text, setText] = useState('');
  const [whose, setWhose] = useState<Whose>('all');
  const [renaming, setRenaming] = useState<SavedSearch | null>(null);
  const [deleting, setDeleting] = useState<SavedSearch | null>(null);
  const [monitorOf, setMonitorOf] = useState<SavedSearch | null>(null);
  const notify = useNotifyAction(reload);
  const all = data?.savedSearches ?? [];
  const t = text.trim().toLowerCase();
  const shown = all.filter(
    (s) =>
      (whose === 'all' || (whose === 'mine') === s.mine) &&
      (t === '' || s.name.toLowerCase().includes(t) || s.owner.name.toLowerCase().includes(t)),
  );
  const toggleShared = (s: SavedSearch) =>
    notify(
      () => patch(`/api/saved-searches/${s.id}`, { version: s.version, shared: !s.shared }),
      `${s.name} is ${s.shared ? 'private' : 'shared'} now`,
    );

  return (
    <div className="list-page">
      <PageHeader
        title="Saved searches"
        description="Searches kept with their time range and view: yours, and the ones others share. Each runs with the access of whoever opens it."
        action={
          <Link href="/search" className="btn btn-primary">
            <Icon name="search" /> New search
          </Link>
        }
      />
      <ErrorLine error={error} />
      {all.length > 0 && (
        <ListFilter
          label="Filter by name or owner"
          text={text}
          setText={setText}
          shown={shown.length}
          total={all.length}
          noun={['saved search', 'saved searches']}
        >
          <div className="segmented" role="radiogroup" aria-label="Whose">
            {(
              [
                ['all', 'All'],
                ['mine', 'Mine'],
                ['others', 'Shared with me'],
              ] as const
            ).map(([k, label]) => (
              <button
                key={k}
                role="radio"
                aria-checked={whose === k}
                className={whose === k ? 'on' : ''}
                onClick={() => setWhose(k)}
              >
                {label}
              </button>
            ))}
          </div>
        </ListFilter>
      )}
      <AdminTable
        testId="saved-searches"
        className="saved-table"
        columns={['Name', 'Owner', 'Shared', 'Last used']}
        empty={
          data &&
          shown.length === 0 &&
          (all.length === 0 ? (
            <div className="empty-state">
              <Icon name="bookmark" size={28} />
              <strong>No saved searches yet</strong>
              <span>
                Run a search, then choose <strong>Save</strong> beside the Search button. It keeps the query, the
                environment and index, the time range and the view (events, table or chart), to open again in one click
                or share with your team.
              </span>
              <Link href="/search" className="btn btn-secondary">
                <Icon name="search" /> Go to search
              </Link>
            </div>
          ) : (
            <>Nothing matches this filter.</>
          ))
        }
      >
        {shown.map((s) => (
          <Row
            key={s.id}
            s={s}
            onRename={() => setRenaming(s)}
            onDuplicate={() =>
              void notify(
                () => post<SavedSearch>(`/api/saved-searches/${s.id}/duplicate`),
                (c) => `Copied as “${c.name}”`,
              )
            }
            onShare={() => void toggleShared(s)}
            onMonitor={() => setMonitorOf(s)}
            onDelete={() => setDeleting(s)}
          />
        ))}
      </AdminTable>
      {renaming && (
        <RenameDialog
          s={renaming}
          onClose={() => setRenaming(null)}
          onDone={() => {
            setRenaming(null);
            reload();
          }}
        />
      )}
      {monitorOf && <MonitorFromSearch prefill={monitorPrefillOf(monitorOf)} onClose={() => setMonitorOf(null)} />}
      {deleting && (
        <ConfirmDelete
          what="saved search"
          name={deleting.name}
          confirmLabel="Delete"
          consequence={
            deleting.shared
              ? 'It goes for everyone it is shared with, too. Searches already open keep running.'
              : 'Searches already open keep running.'
          }
          onConfirm={() =>
            notify(
              () => del(`/api/saved-searches/${deleting.id}?version=${deleting.version}`),
              `${deleting.name} deleted`,
            )
          }
          onClose={() => setDeleting(null)}
        />
      )}
    </div>
  );
}

interface RowProps {
  s: SavedSearch;
  onRename: () => void;
  onDuplicate: () => void;
  onShare: () => void;
  onMonitor: () => void;
  onDelete: () => void;
}

/** One saved search: what it is, whose, shared, last used; open, copy and monitor for all, changes for who may. */
function Row({ s, onRename, onDuplicate, onShare, onMonitor, onDelete }: RowProps) {
  const href = searchHref(s);
  return (
    <tr data-saved={s.name} data-editable={s.canEdit ? 'true' : 'false'}>
      <td className="name-cell">
        <Link href={href} className="strong saved-name">
          {s.name}
        </Link>
        {s.description && <div className="small saved-description">{s.description}</div>}
        <div className="mono small clamp muted" title={s.query}>
          {s.query}
        </div>
        <div className="muted small">
          {s.env === '*' ? 'all environments' : s.env}
          {s.index ? ` / ${s.index}` : ''} · {savedRangeLabel(s.range)} · {viewLabel(s.view)}
        </div>
      </td>
      <td>{s.mine ? <span className="strong">You</span> : s.owner.name}</td>
      <td>
        {s.canEdit ? (
          <label className="switch" title={s.shared ? 'Shared: others can open it' : 'Private: only you see it'}>
            <input type="checkbox" role="switch" checked={s.shared} onChange={onShare} aria-label={`Share ${s.name}`} />
            <span>{s.shared ? 'Shared' : 'Private'}</span>
          </label>
        ) : (
          <span className="badge badge-readonly" title="Shared with you: you can open and copy it">
            <Icon name="lock" size={12} /> Read-only
          </span>
        )}
      </td>
      <td className="small" title={s.lastUsedAt}>
        {relativeTime(s.lastUsedAt)}
        <div className="muted">
          {s.lastRunAt ? `run ${relativeTime(s.lastRunAt)}` : `changed ${relativeTime(s.updatedAt)}`}
        </div>
      </td>
      <td className="actions-col">
        <Link href={href} className="btn btn-secondary btn-sm" aria-label={`Open ${s.name}`}>
          <Icon name="play" size={14} /> Open
        </Link>
        {s.canEdit && (
          <Button size="sm" icon="pencil" onClick={onRename} aria-label={`Rename ${s.name}`}>
            Rename
          </Button>
        )}
        <Button
          size="sm"
          icon="copy"
          onClick={onDuplicate}
          aria-label={`Duplicate ${s.name}`}
          title="A private copy of your own"
        >
          Duplicate
        </Button>
        <Button
          size="sm"
          icon="bell"
          onClick={onMonitor}
          aria-label={`Create monitor from ${s.name}`}
          title="A monitor that runs this search on a schedule"
        >
          Create monitor
        </Button>
        {s.canEdit && <DeleteButton name={s.name} onClick={onDelete} />}
      </td>
    </tr>
  );
}

/** A new name and description, with the version the list read (409 when someone changed it meanwhile). */
function RenameDialog({ s, onClose, onDone }: { s: SavedSearch; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState(s.name);
  const [description, setDescription] = useState(s.description);
  const action = useAsyncAction();
  return (
    <FormDialog
      id="rename-saved-form"
      title="Rename saved search"
      onClose={onClose}
      onSubmit={async () => {
        await patch(`/api/saved-searches/${s.id}`, { version: s.version, name, description });
        onDone();
      }}
      action={action}
      canSubmit={name.trim() !== ''}
      submitLabel="Rename"
    >
      <NameFields name={name} description={description} onName={setName} onDescription={setDescription} />
    </FormDialog>
  );
}
