import type { Logger } from 'pino';
import { actingAs } from '../auth/acting-as.js';
import type { Clock } from '../clock/clock.js';
import type { ControlDoc, MonitorDestination, MonitorRecord } from '../control/records.js';
import type { SearchService } from '../query/types.js';
import type { SelfLog } from '../selflog/types.js';
import type { MonitorObserver } from '../metrics/monitors.js';
import { SvcError } from '../errors/svc-error.js';
import { groupFieldsOf, judge, parseThreshold, printThreshold, type GroupVerdict } from './condition.js';
import { durationMs as msOf } from './duration.js';
import {
  deliver,
  notification,
  payload,
  type AiJudgement,
  type Delivery,
  type DeliveryOptions,
  type Notification,
} from './notify.js';
import { AI_ROWS_DEFAULT, askVerdict, judgePrompt, rowsOf } from './ai-condition.js';
import type { LlmProvider } from '../llm/provider.js';
import type { OutboundClient } from '../outbound/client.js';
import type { Principal } from '../auth/principal.js';
import type { MonitorRunState, MonitorStates } from './state.js';

// One run of one monitor: search the window as the owner, judge, move each group's state, notify.

export interface MonitorDeps {
  search: SearchService;
  control: { readonly doc: Readonly<ControlDoc> };
  states: MonitorStates;
  selflog: SelfLog;
  clock: Clock;
  log: Logger;
  /** svc's address for links (SVC_PUBLIC_URL, else the listen address). */
  baseUrl: () => string;
  delivery: DeliveryOptions;
  /** The guarded client every webhook goes through. */
  outbound: OutboundClient;
  /** For AI conditions; `configured` is false when SVC_LLM_URL is unset. */
  llm: LlmProvider;
  /** Fields never sent to the provider (SVC_LLM_REDACT_FIELDS). */
  redactFields: readonly string[];
  /** Told of every run once it ended (metrics/monitors.ts). */
  observer?: MonitorObserver;
}

/** What a run did, as `POST /api/monitors/{id}/run` answers it. */
export interface RunOutcome {
  outcome: 'ok' | 'error';
  /** The window searched, RFC 3339. */
  from: string;
  to: string;
  durationMs: number;
  triggered?: boolean;
  groups?: GroupVerdict[];
  /** An AI monitor's judgement. */
  ai?: AiJudgement;
  /** Groups firing after the run. */
  firing?: string[];
  /** Each delivery's attempts, status and error details are for admins; others see only whether it failed (service.ts). */
  notifications?: {
    state: Notification['state'];
    group: string;
    repeat?: boolean;
    deliveries: (Omit<Delivery, 'attempts'> & { attempts?: number; destination: string })[];
  }[];
  error?: { code: string; message: string };
}

/** A webhook without its path and query, which often hold its secret (Slack, Teams). */
export function redactWebhook(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' && !u.search ? '/' : '/…'}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Runs monitor `m` over the window ending at `toMs`. Never throws: a run that cannot complete
 * (owner gone, query refused, condition naming a missing column) is an `error` outcome, recorded,
 * and leaves the firing groups as they were; it is never taken for "not triggered".
 */
export async function runMonitor(
  d: MonitorDeps,
  m: MonitorRecord,
  toMs: number,
  trigger: 'schedule' | 'manual',
): Promise<RunOutcome> {
  const started = d.clock.now();
  const fromMs = toMs - (msOf(m.window) ?? 0);
  const base = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() };
  const record = { monitor_id: m.id, monitor: m.name, trigger, slot: trigger === 'schedule' ? base.to : undefined };
  let judged: Judged;
  try {
    judged = await evaluate(d, m, actingAs(d.control.doc, m.owner, started), base);
  } catch (e) {
    const err =
      e instanceof SvcError
        ? { code: e.code, message: e.message }
        : { code: 'internal', message: (e as Error).message };
    const durationMs = d.clock.now() - started;
    await d.states.update(m.id, (s) => ({
      ...s,
      lastRun: { at: new Date(started).toISOString(), outcome: 'error', trigger, durationMs, error: err.message },
    }));
    d.selflog.service(
      'monitor_run',
      { ...record, outcome: 'error', duration_ms: durationMs, error: `${err.code}: ${err.message}` },
      'error',
    );
    d.observer?.run(trigger, 'error');
    return { outcome: 'error', ...base, durationMs, error: err };
  }

  const { verdicts, rows, ai } = judged;
  const now = d.clock.now();
  const condition = conditionText(m);
  const before = d.states.get(m.id);
  const { next, sends } = transitions(m, before, verdicts, now);
  const durationMs = now - started;
  next.lastRun = {
    at: new Date(started).toISOString(),
    outcome: 'ok',
    trigger,
    durationMs,
    triggered: verdicts.some((v) => v.triggered),
    rows,
  };
  // the state first: a crash before the deliveries loses them rather than repeating them at the next start
  await d.states.update(m.id, (s) => ({ ...next, lastSlot: s.lastSlot, running: s.running }));
  const notes = await Promise.all(
    sends.map(async (v) => {
      const n = notification(
        m,
        condition,
        v,
        { fromMs, toMs, nowMs: now, baseUrl: d.baseUrl() },
        v.state === 'firing' ? ai : undefined,
      );
      const event = v.state === 'firing' ? ('monitor_fired' as const) : ('monitor_resolved' as const);
      if (event === 'monitor_fired')
        d.selflog.service(event, {
          monitor_id: m.id,
          monitor: m.name,
          group: v.group,
          value: v.value,
          threshold: condition,
          repeat: v.repeat || undefined,
        });
      else d.selflog.service(event, { monitor_id: m.id, monitor: m.name, group: v.group, value: v.value });
      const deliveries = await Promise.all(m.destinations.map((dest) => send(d, m, dest, n)));
      return { state: v.state, group: v.group, repeat: v.repeat || undefined, deliveries };
    }),
  );
  const firing = Object.keys(next.firing);
  d.observer?.run(trigger, 'ok');
  d.selflog.service('monitor_run', {
    ...record,
    outcome: 'ok',
    duration_ms: durationMs,
    rows,
    triggered: next.lastRun.triggered,
    groups_firing: firing.length,
  });
  return {
    outcome: 'ok',
    ...base,
    durationMs,
    triggered: next.lastRun.triggered,
    groups: verdicts,
    ai,
    firing,
    notifications: notes,
  };
}

export interface Judged {
  verdicts: GroupVerdict[];
  /** Rows of the result (a table), or events matched. */
  rows: number;
  ai?: AiJudgement;
}

/** The condition as people read it: `count > 10`, `AI: <sentence>`. */
export function conditionText(m: MonitorRecord): string {
  return 'ai' in m.condition ? `AI: ${m.condition.ai}` : printThreshold(parseThreshold(m.condition.threshold));
}

/** Searches the window as the owner and judges the result: by threshold, or by the LLM (one group). */
export async function evaluate(
  d: MonitorDeps,
  m: MonitorRecord,
  principal: Principal,
  w: { from: string; to: string },
): Promise<Judged> {
  const q = { q: m.query, env: m.env, index: m.index, from: w.from, to: w.to, lane: 'monitor' as const };
  const c = m.condition;
  if (!('ai' in c)) {
    const threshold = parseThreshold(c.threshold);
    const result = await d.search.search(principal, { ...q, limit: 1 });
    return {
      verdicts: judge(result, threshold, m.groupBy ?? groupFieldsOf(m.query)),
      rows: result.rows?.length ?? result.meta.matched,
    };
  }
  if (!d.llm.configured)
    throw new SvcError('llm_not_configured', 'this AI monitor needs an LLM provider (SVC_LLM_URL)');
  const maxRows = c.maxRows ?? AI_ROWS_DEFAULT;
  const result = await d.search.search(principal, { ...q, limit: maxRows });
  const total = result.rows?.length ?? result.meta.matched;
  const sent = rowsOf(result, d.redactFields).slice(0, maxRows);
  const v = await askVerdict(d.llm, judgePrompt({ ...m, condition: c }, sent, total, w));
  return {
    verdicts: [{ group: '*', value: total, triggered: v.triggered }],
    rows: total,
    ai: { severity: v.severity, summary: v.summary, evidence: v.evidence },
  };
}

interface Send {
  state: 'firing' | 'resolved';
  repeat?: boolean;
  group: string;
  value: number;
}

/**
 * ok → firing (notify), firing → firing (notify again only once the cooldown has passed since the
 * last notification), firing → resolved (notify; a group absent from the result resolves too).
 */
export function transitions(
  m: MonitorRecord,
  s: MonitorRunState,
  verdicts: GroupVerdict[],
  nowMs: number,
): { next: MonitorRunState; sends: Send[] } {
  const cooldown = msOf(m.cooldown) ?? 0;
  const at = new Date(nowMs).toISOString();
  const firing: MonitorRunState['firing'] = {};
  const sends: Send[] = [];
  for (const v of verdicts) {
    if (!v.triggered) continue;
    const was = s.firing[v.group];
    if (!was) {
      firing[v.group] = { since: at, notifiedAt: at, value: v.value };
      sends.push({ state: 'firing', group: v.group, value: v.value });
    } else if (nowMs - Date.parse(was.notifiedAt) >= cooldown) {
      firing[v.group] = { since: was.since, notifiedAt: at, value: v.value };
      sends.push({ state: 'firing', repeat: true, group: v.group, value: v.value });
    } else firing[v.group] = { ...was, value: v.value };
  }
  for (const group of Object.keys(s.firing)) {
    if (firing[group]) continue;
    sends.push({ state: 'resolved', group, value: verdicts.find((v) => v.group === group)?.value ?? 0 });
  }
  return { next: { ...s, firing }, sends };
}

async function send(
  d: MonitorDeps,
  m: MonitorRecord,
  dest: MonitorDestination,
  n: Notification,
): Promise<Delivery & { destination: string }> {
  const destination = redactWebhook(dest.webhook);
  const r = await deliver(d.outbound, dest.webhook, payload(n, dest.format), d.delivery);
  if (!r.ok) {
    d.log.warn(
      { monitor: m.id, destination, attempts: r.attempts, status: r.status, error: r.error },
      'monitor notification not delivered',
    );
    d.selflog.service('monitor_destination_failed', {
      monitor_id: m.id,
      monitor: m.name,
      destination,
      attempts: r.attempts,
      status: r.status,
      error: r.error ?? 'failed',
    });
  }
  return { ...r, destination };
}
