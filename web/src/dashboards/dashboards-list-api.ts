import { api, del, get, post } from '../api/client';
import type { DashboardSummary, DashboardView } from '../../../src/dashboards/types';

// The calls of the Dashboards list (docs/dashboards.md, "The list page"); the dashboard page has its own.
export type { DashboardSummary };

/** What POST /api/dashboards/import answers: the new dashboard and what changed on the way in. */
export type Imported = DashboardView & { warnings: string[] };

/** The page of one dashboard (web/src/dashboards/DashboardPage.tsx), under the UI's base `/ui`. */
export const dashboardHref = (id: string) => `/dashboards/${encodeURIComponent(id)}`;

export const listDashboards = () => get<{ dashboards: DashboardSummary[] }>('/api/dashboards');

/** The home dashboard of Admin → General when the caller may open it (else id null). */
export const homeDashboard = () => get<{ id: string | null }>('/api/dashboards/home');

/** A new empty dashboard: the page then opens it to add panels. */
export const createDashboard = (title: string) => post<DashboardView>('/api/dashboards', { title });

/** The export file (format 1) as the server writes it: what Export downloads and Duplicate re-imports. */
export const exportDashboard = (id: string) =>
  get<Record<string, unknown>>(`/api/dashboards/${encodeURIComponent(id)}/export`);

export const importDashboard = (file: unknown) => post<Imported>('/api/dashboards/import', file);

/**
 * A private copy for the caller: its export imported again under a new title, so the copy goes
 * through the same checks as any import (a saved-search panel the caller may not read becomes inline).
 */
export async function duplicateDashboard(d: DashboardSummary): Promise<Imported> {
  const file = await exportDashboard(d.id);
  return importDashboard({ ...file, title: `${d.title.slice(0, 190)} (copy)` });
}

export const deleteDashboard = (id: string) => del(`/api/dashboards/${encodeURIComponent(id)}`);

export const setShared = (d: DashboardSummary, shared: boolean) =>
  api<DashboardView>('PATCH', `/api/dashboards/${encodeURIComponent(d.id)}`, { body: { version: d.version, shared } });

/** A file name for an export: the title in lower case, letters and digits, `-` between. */
export function exportFileName(title: string): string {
  const base = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${base || 'dashboard'}.dashboard.json`;
}

/** Hands `data` to the browser as a download named `name`. */
export function download(name: string, data: unknown): void {
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // after the click has handed the blob over; revoking at once can cancel the download in some browsers
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
