import type { DashboardRecord, InlineSource, PanelType } from '../control/records.js';
import type { HistogramResult, SearchMeta, SearchResult } from '../query/types.js';

// The shapes /api/dashboards answers with, in one place for the server and the web UI (which
// imports them type-only, like the search answers): nothing here may import runtime code.

/** How an answer was had: run now, taken from the cache, or shared with an identical run in flight. */
export type CacheOutcome = 'miss' | 'hit' | 'shared';

/** A dashboard as the API shows it: the record, and whether the caller may change it. */
export interface DashboardView extends DashboardRecord {
  canEdit: boolean;
}

/** One line of GET /api/dashboards. */
export interface DashboardSummary {
  id: string;
  title: string;
  description: string;
  owner: DashboardRecord['owner'];
  shared: boolean;
  version: number;
  updatedAt: string;
  panels: number;
  canEdit: boolean;
}

/** What a panel's answer says beside the search's own meta. */
export interface PanelMeta extends SearchMeta {
  /** miss: run now; hit: from the cache; shared: one run served identical requests in flight. */
  cache: CacheOutcome;
  /** Present when the viewer's access leaves data out (docs/dashboards.md, "Access"): never an error. */
  hidden?: string;
}

/** The range a run used, resolved to instants (RFC 3339): the same for every panel of one load. */
export interface ResolvedRange {
  from: string;
  to: string;
}

/**
 * POST /api/dashboards/{id}/panels/{panelId}/run: the answer of /api/search (or /api/histogram for a
 * histogram panel) with the panel it is for and the range it covered.
 */
export type PanelAnswer = {
  panel: { id: string; type: PanelType };
  /** The query that ran (variables inserted, a saved search's read), its env and index: what a drill-down searches. */
  source: InlineSource;
  range: ResolvedRange;
  meta: PanelMeta;
} & (Omit<SearchResult, 'meta'> | Omit<HistogramResult, 'meta'>);

/** POST /api/dashboards/{id}/variables/{name}/values. */
export interface VariableValues {
  name: string;
  values: string[];
  range?: ResolvedRange;
  meta?: PanelMeta;
}
