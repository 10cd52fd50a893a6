import type { SavedSearchRecord, SavedView } from '../control/records.js';
import type { SearchResult } from '../query/types.js';

// The shapes /api/saved-searches answers with, in one place for the server and the web UI (which
// imports them type-only, like the search answers): nothing here may import runtime code.

/** What a client sends to create a saved search (the HTTP schema checks shapes; the service checks meaning). */
export interface SavedSearchInput {
  name: string;
  description?: string;
  query: string;
  env?: string;
  index?: string;
  range?: { from: string; to: string };
  view?: SavedView;
  shared?: boolean;
}

/** A change: any field of the input (`index: null` clears it), and the version the editor read (a stale one is 409 version_conflict). */
export type SavedSearchPatch = Partial<Omit<SavedSearchInput, 'index'>> & { version: number; index?: string | null };

/** A saved search as the API shows it to one caller: the record, and what that caller may do with it. */
export interface SavedSearchView extends SavedSearchRecord {
  /** The caller owns it. */
  mine: boolean;
  /** The caller may change and delete it: its owner, or an admin. */
  canEdit: boolean;
}

/** What a run may change: the saved range (for this run only) and how many events or rows come back. */
export interface RunOverrides {
  from?: string;
  to?: string;
  limit?: number;
  /** Stops the search when the caller goes away. Not a request field. */
  signal?: AbortSignal;
}

/** A run's answer: /api/search's answer, with what was run. */
export interface SavedSearchRun extends SearchResult {
  savedSearch: { id: string; name: string; version: number; view: SavedView };
  /** The range searched, as given (the saved one, or the run's override). */
  range: { from: string; to: string };
  /** The environments searched: for `*`, only those the caller may read. */
  envs: string[];
}

/** List filters: `q` a part of the name (any case), `owner` an owner's name or id, `all` (admins) others' private ones too. */
export interface ListFilter {
  q?: string;
  owner?: string;
  all?: boolean;
}
