import { api, get } from '../api/client';
import type { DashboardView, PanelAnswer, VariableValues } from '../../../src/dashboards/types';
import type {
  DashboardPanel,
  DashboardRecord,
  DashboardVariable,
  InlineSource,
  PanelType,
} from '../../../src/control/records';

// the shapes come from the server's own definitions (type-only imports, erased from the bundle)
export type { DashboardView, PanelAnswer, VariableValues, DashboardPanel, DashboardVariable, InlineSource, PanelType };

/** What a change may carry (PATCH /api/dashboards/{id}: the fields given; lists replace whole). */
export type DashboardChange = Partial<Pick<DashboardRecord, 'title' | 'time' | 'refresh' | 'variables' | 'panels'>>;

/** The body of a panel run and of a variable's values (docs/dashboards.md, "Running a panel"). */
export interface RunBody {
  from?: string;
  to?: string;
  /** One instant for every panel of one load, so they cover the same range. */
  now: string;
  vars: Record<string, string | string[]>;
}

const path = (id: string) => `/api/dashboards/${encodeURIComponent(id)}`;

export const getDashboard = (id: string, signal?: AbortSignal) => get<DashboardView>(path(id), undefined, signal);

/** A change made from `version` (a stale one is 409 version_conflict: someone changed it first). */
export const changeDashboard = (id: string, version: number, change: DashboardChange) =>
  api<DashboardView>('PATCH', path(id), { body: { ...change, version } });

export const runPanel = (id: string, panelId: string, body: RunBody, signal?: AbortSignal) =>
  api<PanelAnswer>('POST', `${path(id)}/panels/${encodeURIComponent(panelId)}/run`, { body, signal });

export const variableValues = (id: string, name: string, body: RunBody, signal?: AbortSignal) =>
  api<VariableValues>('POST', `${path(id)}/variables/${encodeURIComponent(name)}/values`, { body, signal });

export const PANEL_KINDS: { type: PanelType; label: string }[] = [
  { type: 'timeseries', label: 'Time series' },
  { type: 'single', label: 'Single value' },
  { type: 'table', label: 'Table' },
  { type: 'bar', label: 'Bar chart' },
  { type: 'pie', label: 'Pie chart' },
  { type: 'events', label: 'Events' },
  { type: 'histogram', label: 'Histogram' },
];
