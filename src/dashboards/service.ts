import { randomBytes } from 'node:crypto';
import { ownerOf } from '../auth/acting-as.js';
import type { Principal } from '../auth/principal.js';
import { checkVersion, mayEdit, mayView, visible } from '../auth/sharing.js';
import type { Clock } from '../clock/clock.js';
import type { DashboardPanel, DashboardRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { isSvcError, SvcError } from '../errors/svc-error.js';
import { checkBody, type SavedSearchLookup } from './check.js';
import {
  createSchema,
  DASHBOARD_FORMAT,
  exportSchema,
  fieldError,
  parseWith,
  patchSchema,
  replaceSchema,
  type CreateInput,
  type ExportDoc,
  type ExportedPanel,
} from './format.js';
import { runPanel, variableValues, type RunRequest, type SavedSearchReader } from './run-panel.js';
import type { PanelRunner } from './runner.js';
import type { DashboardSummary, DashboardView, PanelAnswer, VariableValues } from './types.js';

/** At most this many dashboards in the control plane, each at most MAX_BYTES as JSON: it is one document. */
const MAX_DASHBOARDS = 500;
const MAX_BYTES = 256 * 1024;

/**
 * Dashboards as REST sees them (docs/decisions/0024-dashboards.md): stored in the control plane,
 * owned by who made them, shared read-only with everyone who may search; owners and admins change
 * them, each change naming the version it was made from. Panels run as the viewer (run-panel.ts).
 */
export class DashboardService {
  constructor(
    private readonly control: ControlStore,
    private readonly clock: Clock,
    readonly runner: PanelRunner,
    private readonly savedSearches: SavedSearchReader,
  ) {}

  /** The caller's own and the shared ones (an admin sees all), `q` matching title or owner name. */
  list(p: Principal, q?: string): DashboardSummary[] {
    const needle = q?.trim().toLowerCase();
    return this.all()
      .filter((d) => mayView(p, d))
      .filter((d) => !needle || d.title.toLowerCase().includes(needle) || d.owner.name.toLowerCase().includes(needle))
      .sort((a, b) => a.title.localeCompare(b.title))
      .map((d) => ({
        id: d.id,
        title: d.title,
        description: d.description,
        owner: d.owner,
        shared: d.shared,
        version: d.version,
        updatedAt: d.updatedAt,
        panels: d.panels.length,
        canEdit: mayEdit(p, d),
      }));
  }

  get(p: Principal, id: string): DashboardView {
    const d = this.find(p, id);
    return { ...d, canEdit: mayEdit(p, d) };
  }

  async create(p: Principal, body: unknown): Promise<DashboardView> {
    return this.insert(p, parseWith(createSchema, body));
  }

  /**
   * A dashboard from its export file; checked whole before anything is stored. A saved-search panel
   * keeps its reference when the importer may read that saved search here; else it becomes inline
   * from the file's snapshot, and `warnings` names it (no snapshot either: 400 naming the path).
   */
  async import(p: Principal, body: unknown): Promise<DashboardView & { warnings: string[] }> {
    const { format, ...doc } = parseWith(exportSchema, body);
    void format;
    const warnings: string[] = [];
    const panels = doc.panels.map((panel, i) => this.imported(p, panel, i, warnings));
    return { ...(await this.insert(p, { ...doc, panels, shared: false })), warnings };
  }

  /**
   * The export file: what carries over to another svc (no id, owner, version or times). A
   * saved-search panel carries its reference and, when the exporter may read it, a snapshot of it.
   */
  export(p: Principal, id: string): ExportDoc {
    const d = this.find(p, id);
    return {
      format: DASHBOARD_FORMAT,
      title: d.title,
      description: d.description,
      time: d.time,
      refresh: d.refresh,
      variables: d.variables,
      panels: d.panels.map((panel) => this.exported(p, panel)),
    };
  }

  /** PATCH: the fields given change (lists whole); `version` must be the current one. */
  async update(p: Principal, id: string, body: unknown): Promise<DashboardView> {
    const { version, shared, ...patch } = parseWith(patchSchema, body);
    return this.change(p, id, version, (cur) => ({
      ...checkBody({ ...cur, ...patch }, this.clock.now(), this.lookup(p, cur)),
      shared: shared ?? cur.shared,
    }));
  }

  /** PUT: the whole dashboard again; `version` must be the current one. */
  async replace(p: Principal, id: string, body: unknown): Promise<DashboardView> {
    const { version, shared, ...doc } = parseWith(replaceSchema, body);
    return this.change(p, id, version, (cur) => ({
      ...checkBody(doc, this.clock.now(), this.lookup(p, cur)),
      shared,
    }));
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.control.mutate((doc) => {
      visible(p, doc.dashboards ?? [], id, 'dashboard', true);
      doc.dashboards = (doc.dashboards ?? []).filter((d) => d.id !== id);
    });
  }

  runPanel(p: Principal, id: string, panelId: string, req: RunRequest): Promise<PanelAnswer> {
    return runPanel(this.runner, this.savedSearches, p, this.find(p, id), panelId, req, this.clock.now());
  }

  variableValues(p: Principal, id: string, name: string, req: RunRequest): Promise<VariableValues> {
    return variableValues(this.runner, p, this.find(p, id), name, req, this.clock.now());
  }

  private async insert(p: Principal, input: CreateInput): Promise<DashboardView> {
    const owner = ownerOf(p);
    const { shared, ...body } = input;
    const now = new Date(this.clock.now()).toISOString();
    const rec: DashboardRecord = {
      id: `dsh_${randomBytes(9).toString('base64url')}`,
      ...checkBody(body, this.clock.now(), this.lookup(p)),
      owner,
      shared,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    checkSize(rec);
    await this.control.mutate((doc) => {
      const list = (doc.dashboards ??= []);
      if (list.length >= MAX_DASHBOARDS) throw new SvcError('limit_reached', `at most ${MAX_DASHBOARDS} dashboards`);
      list.push(rec);
    });
    return { ...rec, canEdit: true };
  }

  /**
   * Applies `next` to the dashboard as stored, inside the control plane's write: the version check
   * runs against the latest document (also one another node just wrote), so of two edits made from
   * the same version the second is told (409 version_conflict), never silently lost.
   */
  private async change(
    p: Principal,
    id: string,
    version: number,
    next: (cur: DashboardRecord) => Omit<DashboardRecord, 'id' | 'owner' | 'version' | 'createdAt' | 'updatedAt'>,
  ): Promise<DashboardView> {
    const now = new Date(this.clock.now()).toISOString();
    // found and checked in the write, on the latest document: a dashboard made or changed on
    // another node a moment ago is seen, whatever this node's copy says
    const rec = await this.control.mutate((doc) => {
      const list = doc.dashboards ?? [];
      const cur = visible(p, list, id, 'dashboard', true);
      const i = list.indexOf(cur);
      checkVersion(cur, version, 'dashboard');
      const updated: DashboardRecord = { ...cur, ...next(cur), version: cur.version + 1, updatedAt: now };
      checkSize(updated);
      list[i] = updated;
      return updated;
    });
    return { ...rec, canEdit: true };
  }

  /**
   * Saved searches as `p` may read them: one they may not (or gone) is a 400 naming the panel's
   * path, unless `cur` (the dashboard as stored) already referred to it: a saved search deleted
   * since must not stop a change to the title or another panel; its panel answers its error when run.
   */
  private lookup(p: Principal, cur?: DashboardRecord): SavedSearchLookup {
    // per panel: the panel that held the reference may keep it, another may not take it up
    const held = new Set(
      cur?.panels.flatMap((x) => ('savedSearchId' in x.source ? [`${x.id}\n${x.source.savedSearchId}`] : [])),
    );
    return (id, field, panelId) => {
      const s = this.readable(p, id);
      if (!s && held.has(`${panelId}\n${id}`)) return undefined;
      if (!s) throw fieldError(field, `no saved search ${id} you may read (deleted, or private to its owner)`);
      return s;
    };
  }

  private readable(p: Principal, id: string): { name: string; query: string; env: string; index?: string } | undefined {
    try {
      return this.savedSearches.get(p, id);
    } catch (e) {
      if (isSvcError(e) && e.code === 'not_found') return undefined;
      throw e;
    }
  }

  private exported(p: Principal, panel: DashboardPanel): ExportedPanel {
    if ('query' in panel.source) return panel as ExportedPanel;
    const s = this.readable(p, panel.source.savedSearchId);
    if (!s) return panel as ExportedPanel;
    const snapshot = { name: s.name, query: s.query, env: s.env, ...(s.index ? { index: s.index } : {}) };
    return { ...panel, source: { savedSearchId: panel.source.savedSearchId, snapshot } } as ExportedPanel;
  }

  private imported(p: Principal, panel: ExportedPanel, i: number, warnings: string[]): ExportedPanel {
    if (!('savedSearchId' in panel.source) || this.readable(p, panel.source.savedSearchId)) return panel;
    const { savedSearchId: id, snapshot } = panel.source;
    const field = `panels[${i}].source.savedSearchId`;
    if (!snapshot)
      throw fieldError(field, `no saved search ${id} you may read here, and no snapshot in the file to use instead`);
    const { name, ...inline } = snapshot;
    warnings.push(
      `panels[${i}] ("${panel.title || panel.id || i}"): no saved search ${id} you may read here: the panel is now inline, from the file's copy of "${name}"`,
    );
    return { ...panel, source: inline };
  }

  /**
   * Admin → General's home dashboard, for `/ui/`: its id when one is set and the caller may open it
   * (it was shared when set; made private or deleted since, the UI opens the search page as before).
   */
  home(p: Principal): { id: string | null } {
    const id = this.control.settings().homeDashboard;
    const d = id === undefined ? undefined : this.all().find((x) => x.id === id);
    return { id: d && mayView(p, d) ? d.id : null };
  }

  /** Refuses a home dashboard that is not a shared dashboard here (400 on `homeDashboard`): everyone must be able to open it. */
  checkHome(id: string): void {
    const d = this.all().find((x) => x.id === id);
    if (!d) throw fieldError('homeDashboard', `no dashboard ${id}`);
    if (!d.shared)
      throw fieldError('homeDashboard', `dashboard "${d.title}" is private: share it first, so everyone can open it`);
  }

  private all(): readonly DashboardRecord[] {
    return this.control.doc.dashboards ?? [];
  }

  private find(p: Principal, id: string): DashboardRecord {
    return visible(p, this.all(), id, 'dashboard');
  }
}

function checkSize(d: DashboardRecord): void {
  const bytes = Buffer.byteLength(JSON.stringify(d));
  if (bytes > MAX_BYTES)
    throw new SvcError('invalid_input', `body: the dashboard is ${bytes} bytes as JSON, more than ${MAX_BYTES}`, {
      details: { field: 'body' },
    });
}
