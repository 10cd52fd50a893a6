import type { MonitorDestination, MonitorRecord } from '../control/records.js';
import type { OutboundClient } from '../outbound/client.js';
import { OutboundRefused } from '../outbound/errors.js';
import type { AiJudgement } from './types.js';

export type { AiJudgement } from './types.js';

// Notifications: what a monitor posts to its webhooks, and the delivery with retries.

/** What one notification says; the JSON body of a `json` destination. */
export interface Notification {
  monitor: { id: string; name: string; query: string; env: string; index?: string; condition: string };
  /** `firing`: the group meets the condition (again after the cooldown: `repeat`); `resolved`: no longer. */
  state: 'firing' | 'resolved';
  repeat?: boolean;
  group: string;
  value: number;
  /** One line for people (an AI monitor's: the model's). */
  summary: string;
  /** An AI monitor's judgement. */
  severity?: string;
  evidence?: string[];
  /** The monitor's search over the run's window, in svc's UI. */
  link: string;
  /** The run's window, RFC 3339. */
  from: string;
  to: string;
  at: string;
}

export function notification(
  m: MonitorRecord,
  condition: string,
  v: { state: 'firing' | 'resolved'; repeat?: boolean; group: string; value: number },
  w: { fromMs: number; toMs: number; nowMs: number; baseUrl: string },
  ai?: AiJudgement,
): Notification {
  const from = new Date(w.fromMs).toISOString();
  const to = new Date(w.toMs).toISOString();
  const params = new URLSearchParams({ q: m.query, env: m.env, from, to });
  if (m.index) params.set('index', m.index);
  const where = v.group === '*' ? '' : ` for ${v.group}`;
  const summary = ai
    ? `${m.name} [${ai.severity}]: ${ai.summary}${v.repeat ? ' (still firing)' : ''}`
    : v.state === 'firing'
      ? `${m.name}${where}: ${condition} (value ${v.value})${v.repeat ? ', still firing' : ''}`
      : `${m.name}${where}: resolved (value ${v.value}, condition ${condition})`;
  return {
    monitor: { id: m.id, name: m.name, query: m.query, env: m.env, index: m.index, condition },
    state: v.state,
    repeat: v.repeat || undefined,
    group: v.group,
    value: v.value,
    summary,
    severity: ai?.severity,
    evidence: ai?.evidence,
    link: `${w.baseUrl}/ui/search?${params}`,
    from,
    to,
    at: new Date(w.nowMs).toISOString(),
  };
}

/** The body a destination gets: svc's JSON, or a Slack-style incoming-webhook message. */
export function payload(n: Notification, format: MonitorDestination['format']): unknown {
  if (format === 'json') return n;
  const mark = n.state === 'firing' ? ':rotating_light: FIRING' : ':white_check_mark: RESOLVED';
  return {
    text: `${mark} *${n.monitor.name}*${n.group === '*' ? '' : ` (${n.group})`}: ${n.summary}\n<${n.link}|Open the search in svc>`,
  };
}

export interface DeliveryOptions {
  /** Attempts in all (first try included). */
  attempts: number;
  /** Wait before the 2nd attempt; doubled before each later one. */
  backoffMs: number;
  /** Per attempt. */
  timeoutMs: number;
}

export const DEFAULT_DELIVERY: DeliveryOptions = { attempts: 4, backoffMs: 1000, timeoutMs: 10_000 };

export interface Delivery {
  ok: boolean;
  attempts: number;
  status?: number;
  error?: string;
}

/** What a webhook's answer may hold (read and dropped: only its status counts). */
const WEBHOOK_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * POSTs `body` as JSON through the guarded client (no redirects, public addresses unless allowed).
 * Retried with exponential backoff on network errors, timeouts, 429 and 5xx; another 4xx, a 3xx
 * (redirects are not followed) and a refused destination are final: retrying cannot help.
 * `error` holds the details (socket error, status); only admins get to see them (service.ts).
 */
export async function deliver(
  outbound: OutboundClient,
  url: string,
  body: unknown,
  o: DeliveryOptions,
): Promise<Delivery> {
  let last: Delivery = { ok: false, attempts: 0 };
  for (let attempt = 1; attempt <= o.attempts; attempt++) {
    if (attempt > 1) await new Promise((r) => setTimeout(r, o.backoffMs * 2 ** (attempt - 2)));
    try {
      const res = await outbound.fetch(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'svc-monitors' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(o.timeoutMs),
        },
        { idleTimeoutMs: o.timeoutMs, maxBytes: WEBHOOK_ANSWER_MAX_BYTES },
      );
      await res.body?.cancel();
      if (res.ok) return { ok: true, attempts: attempt, status: res.status };
      const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      last = {
        ok: false,
        attempts: attempt,
        status: res.status,
        error: `answered ${res.status} ${res.statusText}`.trim() + redirect,
      };
      if (res.status !== 429 && res.status < 500) return last;
    } catch (e) {
      if (e instanceof OutboundRefused) return { ok: false, attempts: attempt, error: `refused: ${e.message}` };
      const err = e as NodeJS.ErrnoException;
      last = {
        ok: false,
        attempts: attempt,
        error: err.name === 'TimeoutError' ? `no answer in ${o.timeoutMs} ms` : (err.code ?? err.message),
      };
    }
  }
  return last;
}
