import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { ApiError, get, patch, post } from '../api/client';
import type { SavedSearch, SavedSearchPatch } from '../api/types';
import { writeParams, type SearchParams } from '../search/params';
import { Button } from '../ui/Button';
import { Icon } from '../ui/icons';
import { FormDialog } from '../ui/Modal';
import { NameFields } from './NameFields';
import { useToast } from '../ui/toast';
import { useAsyncAction } from '../ui/useAsyncAction';
import '../styles/saved.css';
import { fieldsOf, savedRangeLabel, searchHref, suggestedName, viewLabel } from './saved';

interface Props {
  params: SearchParams;
  /** The editor's text: what is saved, run or not. */
  draft: string;
  /** The answer on screen is a table (its view is then the table or the chart). */
  table: boolean;
}

/**
 * The search page's Save: one step keeps what is on screen (docs/saved-searches.md). Opened from a
 * saved search (`saved=<id>`), it changes that one with the version it loaded, or saves a new one.
 */
export function SaveSearch({ params, draft, table }: Props) {
  const [, navigate] = useLocation();
  const [record, setRecord] = useState<SavedSearch | null>(null);
  const [open, setOpen] = useState(false);
  // the record of the saved search in the URL, once loaded (another one's, from before, does not count)
  const loaded = record && record.id === params.saved ? record : null;
  const [missing, setMissing] = useState<string | null>(null);
  // until the saved search in the URL has loaded, Save cannot know whether it changes it or saves a new one
  const loading = params.saved !== '' && loaded === null && missing !== params.saved;

  useEffect(() => {
    if (!params.saved) return;
    const ac = new AbortController();
    // one that is gone or not visible any more: Save then saves a new one
    const id = params.saved;
    get<SavedSearch>(`/api/saved-searches/${encodeURIComponent(id)}`, undefined, ac.signal).then(setRecord, () => {
      if (!ac.signal.aborted) setMissing(id);
    });
    return () => ac.abort();
  }, [params.saved]);

  const saved = (s: SavedSearch) => {
    setRecord(s);
    setOpen(false);
    if (s.id !== params.saved) navigate(`/search?${writeParams({ ...params, saved: s.id })}`, { replace: true });
  };
  const editable = loaded?.canEdit === true;
  return (
    <>
      <Button
        icon="bookmark"
        data-testid="save-search"
        aria-haspopup="dialog"
        title={editable ? `Save changes to “${loaded.name}”, or save as a new search` : 'Save this search'}
        disabled={loading}
        onClick={() => setOpen(true)}
      >
        Save
      </Button>
      {open && (
        <SaveDialog
          params={params}
          draft={draft}
          table={table}
          loaded={loaded}
          onClose={() => setOpen(false)}
          onSaved={saved}
          onReload={(s) => {
            setRecord(s);
            setOpen(false);
            navigate(searchHref(s));
          }}
        />
      )}
    </>
  );
}

interface DialogProps extends Props {
  loaded: SavedSearch | null;
  onClose: () => void;
  onSaved: (s: SavedSearch) => void;
  /** Open the saved search as it now is (after someone else changed it). */
  onReload: (s: SavedSearch) => void;
}

/** Name, description and sharing of what is saved; Save (as new) and, for one's own, Save changes. */
function SaveDialog({ params, draft, table, loaded, onClose, onSaved, onReload }: DialogProps) {
  const editable = loaded?.canEdit === true;
  const [name, setName] = useState(loaded?.name ?? suggestedName(draft, params.env));
  const [description, setDescription] = useState(loaded?.description ?? '');
  const [shared, setShared] = useState(editable ? loaded.shared : false);
  const [conflict, setConflict] = useState<number | null>(null);
  const action = useAsyncAction();
  const toast = useToast();
  const fields = fieldsOf(params, draft, table, loaded);

  const create = async () => {
    const s = await post<SavedSearch>('/api/saved-searches', { name, description, shared, ...fields });
    toast('ok', `Saved “${s.name}”`);
    onSaved(s);
  };
  const update = async () => {
    const body: SavedSearchPatch = {
      version: loaded!.version,
      name,
      description,
      shared,
      ...fields,
      index: fields.index ?? null,
    };
    try {
      const s = await patch<SavedSearch>(`/api/saved-searches/${loaded!.id}`, body);
      toast('ok', `Saved changes to “${s.name}”`);
      onSaved(s);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'version_conflict')) throw e;
      setConflict(typeof e.details.currentVersion === 'number' ? e.details.currentVersion : loaded!.version + 1);
    }
  };
  const reload = async () => onReload(await get<SavedSearch>(`/api/saved-searches/${loaded!.id}`));

  return (
    <FormDialog
      id="save-search-form"
      title={loaded && !editable ? 'Save as a new search' : 'Save search'}
      onClose={onClose}
      onSubmit={editable && conflict === null ? update : create}
      action={action}
      canSubmit={name.trim() !== '' && (conflict === null || !editable)}
      submitIcon="bookmark"
      submitLabel={editable ? 'Save' : 'Save search'}
      extraButtons={
        editable && (
          <Button onClick={() => action.run(create)} disabled={action.busy || name.trim() === ''}>
            Save as new
          </Button>
        )
      }
    >
      {conflict !== null && (
        <div className="alert alert-warn" role="alert" data-testid="save-conflict">
          <Icon name="alert" />
          <div>
            Someone else changed <strong>{loaded!.name}</strong> since you opened it (it is now version {conflict}).
            Reload it to see their version, or save yours as a new search.
            <div className="alert-actions">
              <Button size="sm" icon="refresh" onClick={() => action.run(reload)} disabled={action.busy}>
                Reload theirs
              </Button>
            </div>
          </div>
        </div>
      )}
      {loaded && !editable && (
        <p className="muted small">
          <strong>{loaded.name}</strong> is {loaded.owner.name}’s: this saves your own copy of what the page shows.
        </p>
      )}
      <NameFields name={name} description={description} onName={setName} onDescription={setDescription} />
      <label className="check">
        <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} />
        <span>
          Share with everyone
          <span className="muted small block">
            Others can open and copy it, not change it. It runs with their own access to the data.
          </span>
        </span>
      </label>
      <SavedSummary fields={fields} />
    </FormDialog>
  );
}

/** What the save keeps, as the page shows it: the query, where, when, and the view. */
function SavedSummary({ fields }: { fields: ReturnType<typeof fieldsOf> }) {
  return (
    <dl className="save-summary" data-testid="save-summary">
      <dt>Query</dt>
      <dd className="mono">{fields.query}</dd>
      <dt>Where</dt>
      <dd>
        {fields.env === '*' ? 'all environments' : fields.env}
        {fields.index ? ` / ${fields.index}` : ' / all indexes'}
      </dd>
      <dt>Time range</dt>
      <dd>{savedRangeLabel(fields.range)}</dd>
      <dt>View</dt>
      <dd>{viewLabel(fields.view)}</dd>
    </dl>
  );
}
