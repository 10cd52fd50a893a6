import { ApiError } from '../api/client';
import type { Monitor } from '../api/types';

/** The monitor editor's form: every field as the user types it. */
export interface Draft {
  name: string;
  query: string;
  env: string;
  index: string;
  every: string;
  window: string;
  kind: 'threshold' | 'ai';
  threshold: string;
  ai: string;
  maxRows: string;
  cooldown: string;
  webhook: string;
  format: 'json' | 'slack';
}

/** What a search hands to a new monitor ("Save as monitor"): the user only names it and says when and whom to tell. */
export interface MonitorPrefill {
  query: string;
  env: string;
  index: string;
  /** The search's range (`-24h`), the monitor's window when it is a plain relative one. */
  from: string;
  to: string;
}

/** The window of a search's range: `-24h` → `24h`; absolute, snapped or open-ended ranges have none. */
export function windowOfRange(from: string, to: string): string | undefined {
  const m = /^-(\d{1,6})([smhd])$/.exec(from.trim());
  if (!m || to.trim() !== '') return undefined;
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  // the server's limits (src/monitors/duration.ts): at least a second, at most 31 days
  return ms >= 1000 && ms <= 31 * 86_400_000 ? `${m[1]}${m[2]}` : undefined;
}

export function draftOf(m?: Monitor, prefill?: MonitorPrefill): Draft {
  const c = m?.condition;
  return {
    name: m?.name ?? '',
    query: m?.query ?? prefill?.query ?? '',
    // "All environments" is a search's, not a monitor's: a monitor watches one
    env: m?.env ?? (prefill && prefill.env !== '*' ? prefill.env : 'default'),
    index: m?.index ?? prefill?.index ?? '',
    every: m?.every ?? '5m',
    window: m?.window ?? (prefill && windowOfRange(prefill.from, prefill.to)) ?? '15m',
    kind: c && 'ai' in c ? 'ai' : 'threshold',
    threshold: c && 'threshold' in c ? c.threshold : 'count > 0',
    ai: c && 'ai' in c ? c.ai : '',
    maxRows: c && 'ai' in c && c.maxRows ? String(c.maxRows) : '50',
    cooldown: m?.cooldown ?? '1h',
    webhook: '',
    format: m?.destinations[0]?.format ?? 'json',
  };
}

/** The request body of a draft; webhooks only when typed (a saved one is shown redacted and kept). */
export function bodyOf(d: Draft, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: d.name,
    query: d.query,
    env: d.env,
    index: d.index || undefined,
    every: d.every,
    window: d.window,
    condition: d.kind === 'ai' ? { ai: d.ai, maxRows: Number(d.maxRows) || undefined } : { threshold: d.threshold },
    cooldown: d.cooldown,
  };
  if (d.webhook.trim()) body.destinations = [{ webhook: d.webhook.trim(), format: d.format }];
  else if (!editing) body.destinations = [];
  return body;
}

/** A form field that can show an error of its own. */
export type FieldKey = Exclude<keyof Draft, 'kind'>;

export interface FieldError {
  key: FieldKey;
  message: string;
  /** Where in the query the parser stopped (query errors only). */
  position?: number;
}

/**
 * The form field a server error names (`error.field`: `every`, `condition.threshold`,
 * `destinations.0.webhook`…), with the message as it reads under that field; undefined for errors
 * that name none the form shows (they stay at the top of the dialog).
 */
export function fieldErrorOf(e: unknown, kind: Draft['kind']): FieldError | undefined {
  if (!(e instanceof ApiError) || typeof e.details.field !== 'string') return undefined;
  const field = e.details.field;
  const key = keyOf(field, kind);
  if (!key) return undefined;
  // the message names its field ("every: want a duration…"); under the field that is said already
  const text = e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message;
  return {
    key,
    message: text.charAt(0).toUpperCase() + text.slice(1),
    position: key === 'query' ? e.position : undefined,
  };
}

function keyOf(field: string, kind: Draft['kind']): FieldKey | undefined {
  if (field === 'condition') return kind === 'ai' ? 'ai' : 'threshold';
  if (field === 'condition.threshold') return 'threshold';
  if (field === 'condition.ai') return 'ai';
  if (field === 'condition.maxRows') return 'maxRows';
  if (/^destinations(\.\d+(\.webhook)?)?$/.test(field)) return 'webhook';
  if (/^destinations\.\d+\.format$/.test(field)) return 'format';
  const direct: FieldKey[] = ['name', 'query', 'env', 'index', 'every', 'window', 'cooldown'];
  return direct.find((k) => k === field);
}
