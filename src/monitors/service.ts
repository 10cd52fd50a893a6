import { randomBytes } from 'node:crypto';
import { actingAs, ownerOf } from '../auth/acting-as.js';
import type { Principal } from '../auth/principal.js';
import { canRead, isAdmin } from '../auth/rbac.js';
import type { ControlStore } from '../control/store.js';
import type { MonitorDestination, MonitorRecord } from '../control/records.js';
import { SvcError } from '../errors/svc-error.js';
import { parse } from '../query/parser.js';
import { refuseOutputlookup } from '../query/run-outputlookup.js';
import { parseThreshold, printThreshold } from './condition.js';
import { durationMs, EVERY_MAX_MS, EVERY_MIN_MS, WINDOW_MAX_MS } from './duration.js';
import { evaluate, redactWebhook, runMonitor, type MonitorDeps, type RunOutcome } from './run.js';
import { SYSTEM_PRINCIPAL } from '../auth/principal.js';
import { SYSTEM_ENV } from '../control/envs.js';
import { SVCLOGS_INDEX } from '../selflog/types.js';
import type { MonitorScheduler } from './scheduler.js';
import { OutboundRefused } from '../outbound/errors.js';
import type { RunLimiter } from './run-limit.js';
import type { HistoryEntry, MonitorPreview, MonitorView } from './types.js';

/** What a client sends to create a monitor (the HTTP schema checks shapes; this checks meaning). */
export interface MonitorInput {
  name: string;
  query: string;
  env: string;
  index?: string;
  every: string;
  window?: string;
  condition: { threshold: string } | { ai: string; maxRows?: number };
  groupBy?: string[];
  cooldown?: string;
  destinations?: MonitorDestination[];
  enabled?: boolean;
}

const MAX_MONITORS = 1000;

/** A name is one owner's once: on create and on a rename alike (another of theirs may not hold it). */
function refuseTakenName(monitors: readonly MonitorRecord[], m: Pick<MonitorRecord, 'id' | 'name' | 'owner'>): void {
  if (monitors.some((o) => o.id !== m.id && o.name === m.name && o.owner.id === m.owner.id))
    throw new SvcError('already_exists', `you already have a monitor named "${m.name}"`, {
      details: { field: 'name' },
    });
}

/** Monitors as REST sees them: owned by who made them, admins see and change all (docs/decisions/0017-monitors.md). */
export class MonitorService {
  constructor(
    private readonly control: ControlStore,
    private readonly d: MonitorDeps,
    private readonly scheduler: MonitorScheduler,
    private readonly runs: RunLimiter,
  ) {}

  list(p: Principal): MonitorView[] {
    return this.control.doc.monitors.filter((m) => mayManage(p, m)).map((m) => this.view(m));
  }

  get(p: Principal, id: string): MonitorView {
    return this.view(this.find(p, id));
  }

  async create(p: Principal, input: MonitorInput): Promise<MonitorView> {
    const owner = ownerOf(p);
    const now = new Date(this.d.clock.now()).toISOString();
    const fields = this.checked(p, input);
    await this.checkDestinations(p, fields.destinations);
    const rec: MonitorRecord = {
      id: `mon_${randomBytes(9).toString('base64url')}`,
      ...fields,
      owner,
      createdAt: now,
      updatedAt: now,
    };
    await this.control.mutate((doc) => {
      if (doc.monitors.length >= MAX_MONITORS) throw new SvcError('limit_reached', `at most ${MAX_MONITORS} monitors`);
      refuseTakenName(doc.monitors, rec);
      doc.monitors.push(rec);
    });
    return this.view(rec);
  }

  /** Changes what `patch` names; `destinations`, when given, replace the old ones whole. */
  async update(p: Principal, id: string, patch: Partial<MonitorInput>): Promise<MonitorView> {
    const cur = this.find(p, id);
    const merged: MonitorInput = { ...cur, ...patch, condition: patch.condition ?? cur.condition };
    const fields = this.checked(p, merged);
    // only destinations being set: switching off a monitor whose webhook the rules now refuse must work
    if (patch.destinations) await this.checkDestinations(p, fields.destinations);
    const now = new Date(this.d.clock.now()).toISOString();
    const next = await this.control.mutate((doc) => {
      const i = doc.monitors.findIndex((m) => m.id === id);
      if (i < 0) throw new SvcError('not_found', `no monitor ${id}`);
      refuseTakenName(doc.monitors, { ...doc.monitors[i], ...fields });
      doc.monitors[i] = { ...doc.monitors[i], ...fields, updatedAt: now };
      return doc.monitors[i];
    });
    // a monitor switched on starts at its next scheduled time, not with a backlog of missed ones
    if (patch.enabled === true && !cur.enabled) await this.d.states.update(id, (s) => ({ ...s, lastSlot: undefined }));
    return this.view(next);
  }

  async delete(p: Principal, id: string): Promise<void> {
    this.find(p, id);
    await this.control.mutate((doc) => {
      doc.monitors = doc.monitors.filter((m) => m.id !== id);
    });
    await this.scheduler.exclusive(id, () => this.d.states.update(id, () => undefined));
  }

  /** Runs it now over the window ending now, as a scheduled run would (state, notifications, records). */
  async runNow(p: Principal, id: string): Promise<RunOutcome> {
    const m = this.find(p, id);
    this.runs.take(`${p.kind}:${p.id}`);
    const r = await this.scheduler.exclusive(id, () => runMonitor(this.d, m, this.d.clock.now(), 'manual'));
    return isAdmin(p)
      ? r
      : { ...r, notifications: r.notifications?.map((n) => ({ ...n, deliveries: n.deliveries.map(coarseDelivery) })) };
  }

  /**
   * Runs a monitor that is not saved (the editor's preview) over the window ending now: what it
   * would find, without state, notifications or records.
   */
  async preview(p: Principal, input: MonitorInput): Promise<MonitorPreview> {
    const fields = this.checked(p, input);
    await this.checkDestinations(p, fields.destinations);
    const now = this.d.clock.now();
    const m: MonitorRecord = { ...fields, id: 'preview', owner: ownerOf(p), createdAt: '', updatedAt: '' };
    const w = { from: new Date(now - (durationMs(m.window) ?? 0)).toISOString(), to: new Date(now).toISOString() };
    const j = await evaluate(this.d, m, actingAs(this.control.doc, m.owner, now), w);
    return { ...w, rows: j.rows, groups: j.verdicts, ai: j.ai };
  }

  /** The monitor's latest records in `_svclogs` (runs, fires, resolutions, failed deliveries), newest first. */
  async history(p: Principal, id: string, limit = 50): Promise<HistoryEntry[]> {
    this.find(p, id);
    const r = await this.d.search.search(SYSTEM_PRINCIPAL, {
      // the audit trail names the monitor too (its route target): only the monitor's own records are its history
      q: `monitor_id=${JSON.stringify(id)} event=monitor_*`,
      env: SYSTEM_ENV,
      index: SVCLOGS_INDEX,
      limit,
    });
    const admin = isAdmin(p);
    return r.events.map((e) => {
      const f = e.fields;
      // why a webhook failed (its status, a socket error) is for admins: to others it would map a network
      if (!admin && f.event === 'monitor_destination_failed') f.error = DELIVERY_FAILED;
      return {
        time: e.time,
        event: f.event,
        outcome: f.outcome,
        trigger: f.trigger,
        durationMs: f.duration_ms,
        rows: f.rows,
        triggered: f.triggered,
        groupsFiring: f.groups_firing,
        group: f.group,
        value: f.value,
        error: f.error,
        destination: f.destination,
        missedRuns: f.missed_runs,
      } as HistoryEntry;
    });
  }

  private find(p: Principal, id: string): MonitorRecord {
    const m = this.control.doc.monitors.find((x) => x.id === id);
    // another owner's monitor is "not found": its existence is not the caller's business
    if (!m || !mayManage(p, m)) throw new SvcError('not_found', `no monitor ${id}`);
    return m;
  }

  /** The stored fields of `input`, checked: durations, condition, query, access to its env. */
  private checked(p: Principal, input: MonitorInput): Omit<MonitorRecord, 'id' | 'owner' | 'createdAt' | 'updatedAt'> {
    durationField('every', input.every, EVERY_MIN_MS, EVERY_MAX_MS);
    const window = input.window ?? input.every;
    durationField('window', window, EVERY_MIN_MS / 60, WINDOW_MAX_MS);
    const cooldown = input.cooldown ?? '0s';
    if (cooldown !== '0s') durationField('cooldown', cooldown, 1000, 30 * 86_400_000);
    const condition = this.checkedCondition(input.condition);
    try {
      // a monitor runs unattended: it never writes (its runs are refused too, lacking writes=allow)
      refuseOutputlookup(parse(input.query), 'a monitor');
    } catch (e) {
      if (!(e instanceof SvcError)) throw e;
      throw new SvcError(e.code, `query: ${e.message}`, { details: { ...e.details, field: 'query' } });
    }
    // the monitor must be able to run as its maker: refuse now what every run would refuse
    const owner = p.kind === 'ingest_token' ? undefined : actingAs(this.control.doc, ownerOf(p), this.d.clock.now());
    // `field` names the picker at fault, so a form can show the refusal beside it
    if (!owner || !canRead(owner, input.env, input.index)) {
      const field = owner && input.index && canRead(owner, input.env, undefined) ? 'index' : 'env';
      throw new SvcError(
        'access_denied',
        `you may not search env "${input.env}"${input.index ? ` index "${input.index}"` : ''}`,
        { details: { field } },
      );
    }
    if (!this.control.env(input.env))
      throw new SvcError('unknown_environment', `unknown environment "${input.env}"`, { details: { field: 'env' } });
    for (const [i, dest] of (input.destinations ?? []).entries()) checkWebhook(i, dest.webhook);
    return {
      name: input.name,
      query: input.query,
      env: input.env,
      index: input.index,
      every: input.every,
      window,
      condition,
      groupBy: input.groupBy,
      cooldown,
      destinations: (input.destinations ?? []).map((x) => ({ webhook: x.webhook, format: x.format ?? 'json' })),
      enabled: input.enabled ?? true,
    };
  }

  /**
   * Refuses a webhook svc would not send to (a loopback, private or link-local address, also as its
   * name resolves now). Admins are told which address and range; others only that it is not allowed.
   */
  private async checkDestinations(p: Principal, destinations: readonly MonitorDestination[]): Promise<void> {
    for (const [i, dest] of destinations.entries()) {
      try {
        await this.d.outbound.check(dest.webhook);
      } catch (e) {
        if (!(e instanceof OutboundRefused)) throw e;
        const field = `destinations.${i}.webhook`;
        const why = isAdmin(p)
          ? e.message
          : 'svc does not send to this address (not a public one); an operator can allow it with SVC_OUTBOUND_ALLOW';
        throw new SvcError('invalid_input', `${field}: ${why}`, { details: { field } });
      }
    }
  }

  private checkedCondition(c: MonitorInput['condition']): MonitorRecord['condition'] {
    if (!('ai' in c)) return { threshold: printThreshold(parseThreshold(c.threshold)) };
    if (!this.d.llm.configured) {
      throw new SvcError(
        'invalid_input',
        'condition.ai: AI monitors need an LLM provider, and none is configured (SVC_LLM_URL)',
        { details: { field: 'condition.ai' } },
      );
    }
    return c.maxRows === undefined ? { ai: c.ai } : { ai: c.ai, maxRows: c.maxRows };
  }

  private view(m: MonitorRecord): MonitorView {
    const s = this.d.states.get(m.id);
    const firing = Object.entries(s.firing).map(([group, g]) => ({ group, since: g.since, value: g.value }));
    const state =
      s.lastRun?.outcome === 'error' ? 'error' : firing.length > 0 ? 'firing' : s.lastRun ? 'ok' : 'pending';
    return {
      ...m,
      destinations: m.destinations.map((x) => ({ webhook: redactWebhook(x.webhook), format: x.format })),
      state,
      firing,
      lastRun: s.lastRun,
    };
  }
}

/** What a run shows a caller who is not an admin of a delivery that failed. */
const DELIVERY_FAILED = 'webhook delivery failed';

function coarseDelivery(d: { ok: boolean; destination: string }): { ok: boolean; destination: string; error?: string } {
  return d.ok
    ? { ok: true, destination: d.destination }
    : { ok: false, destination: d.destination, error: DELIVERY_FAILED };
}

function mayManage(p: Principal, m: MonitorRecord): boolean {
  return isAdmin(p) || m.owner.id === p.id;
}

function durationField(name: string, text: string, minMs: number, maxMs: number): number {
  const ms = durationMs(text);
  if (ms === undefined)
    throw new SvcError(
      'invalid_input',
      `${name}: want a duration like 30s, 5m, 1h or 1d (got ${JSON.stringify(text)})`,
      { details: { field: name } },
    );
  if (ms < minMs || ms > maxMs)
    throw new SvcError(
      'invalid_input',
      `${name}: must be between ${minMs / 1000} s and ${maxMs / 3_600_000} h (got ${text})`,
      { details: { field: name } },
    );
  return ms;
}

function checkWebhook(i: number, url: string): void {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    throw new SvcError('invalid_input', `destinations.${i}.webhook: want an http(s) URL`, {
      details: { field: `destinations.${i}.webhook` },
    });
  }
}
