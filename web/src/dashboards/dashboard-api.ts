import { api, ApiError, get } from '../api/client';
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

/** Times a panel run refused for a busy search gate is asked again: a second more apart each time, at most 5 s. */
const BUSY_RETRIES = 8;

/**
 * One panel run. svc runs few searches at once (SVC_MAX_CONCURRENT_SEARCHES, per user, and a short
 * wait for a slot): a dashboard of many panels, or one opened while others search, can hear 429
 * too_many_searches for some. Those are asked again after a pause, as a person would press
 * refresh, rather than showing an error for a panel that only came at a busy moment.
 */
export async function runPanel(id: string, panelId: string, body: RunBody, signal?: AbortSignal): Promise<PanelAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<PanelAnswer>('POST', `${path(id)}/panels/${encodeURIComponent(panelId)}/run`, { body, signal });
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429 || attempt > BUSY_RETRIES) throw e;
      // a little jitter, so panels refused together do not all come back at the same instant
      await pause(Math.min(5, attempt) * 1000 + Math.random() * 500, signal);
    }
  }
}

/** Resolves after `ms`; rejects with an AbortError (what isAbort knows) when `signal` fires first. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  const aborted = () => new DOMException('the panel run was left', 'AbortError');
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(aborted());
      },
      { once: true },
    );
  });
}

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
