import { randomBytes } from 'node:crypto';
import type { DashboardRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SYSTEM_ENV } from '../control/envs.js';
import { SVCLOGS_INDEX, SVCMCP_INDEX } from '../selflog/types.js';
import { checkBody } from './check.js';
import { exportSchema, fieldError, parseWith } from './format.js';

const logs = (query: string) => ({ query, env: SYSTEM_ENV, index: SVCLOGS_INDEX });
const at = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

/**
 * The dashboard the first start ships: svc watching itself through `_system` (admins only: to
 * another viewer its panels say they are hidden). Written in the export format and checked like an
 * import, so it is built with the feature itself.
 */
export const SVCLOGS_DASHBOARD = {
  format: 1,
  title: 'svc: ingest, errors, sign-in, MCP',
  description: "svc's own records (_system: _svclogs, _svcmcp) and the events of every env, by their own time.",
  time: { from: '-24h', to: 'now' },
  refresh: '1m',
  variables: [
    { name: 'level', label: 'Level', kind: 'list', values: ['error', 'warn'], default: ['error', 'warn'], multi: true },
  ],
  panels: [
    {
      id: 'ingest',
      title: 'Events of every env, by their time',
      type: 'histogram',
      source: { query: '*', env: '*' },
      grid: at(0, 0, 16, 6),
    },
    {
      id: 'refused',
      title: 'Refused credentials',
      type: 'single',
      source: logs('event=credential_rejected | stats count'),
      options: {
        thresholds: [
          { value: 1, color: 'orange' },
          { value: 100, color: 'red' },
        ],
      },
      grid: at(16, 0, 8, 6),
    },
    {
      id: 'errors',
      title: 'Errors and warnings by event',
      type: 'timeseries',
      source: logs('level=$level$ | timechart count by event'),
      options: { style: 'stacked-bar' },
      grid: at(0, 6, 16, 8),
    },
    {
      id: 'saml',
      title: 'SAML sign-in failures',
      type: 'table',
      source: logs('event=saml_* level=warn | stats count by event'),
      grid: at(16, 6, 8, 8),
    },
    {
      id: 'mcp',
      title: 'MCP calls by key',
      type: 'bar',
      source: { query: '* | stats count by key_name, outcome', env: SYSTEM_ENV, index: SVCMCP_INDEX },
      grid: at(0, 14, 12, 8),
    },
    { id: 'recent', title: 'Latest errors', type: 'events', source: logs('level=error'), grid: at(12, 14, 12, 8) },
  ],
};

/**
 * Adds the dashboard above, shared and owned by the first admin, when the control plane has never
 * held dashboards (a first start, or the first since dashboards came): one deleted later stays deleted.
 */
export async function seedSvclogsDashboard(control: ControlStore, nowMs: number): Promise<void> {
  if (control.doc.dashboards !== undefined) return;
  const { format, ...doc } = parseWith(exportSchema, SVCLOGS_DASHBOARD);
  void format;
  // its panels are inline: no saved search to read
  const body = checkBody(doc, nowMs, (_id, field) => {
    throw fieldError(field, 'the first-start dashboard has no saved-search panels');
  });
  const now = new Date(nowMs).toISOString();
  await control.mutate((d) => {
    // another node may have seeded meanwhile: the check runs again on the latest document
    if (d.dashboards !== undefined) return;
    const admin = d.users.find((u) => u.role === 'admin' && !u.disabled);
    d.dashboards = [];
    if (!admin) return;
    const rec: DashboardRecord = {
      id: `dsh_${randomBytes(9).toString('base64url')}`,
      ...body,
      owner: { kind: 'user', id: admin.id, name: admin.username },
      shared: true,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    d.dashboards.push(rec);
  });
}
