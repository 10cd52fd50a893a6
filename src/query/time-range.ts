/**
 * Time ranges of the language and the API, with no SQL in sight (sql.ts prints time literals):
 * parsing time values (`now`, relative like `-15m`, `-1d@d`, `@h`, `+2h`, RFC 3339 where a date
 * alone is midnight UTC, epoch seconds or milliseconds), spans and their automatic choice, and
 * instants printed as every answer prints them.
 */
import { SvcError } from '../errors/svc-error.js';

const UNIT_SECS: Record<string, number> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
  mon: 2592000,
  month: 2592000,
  months: 2592000,
  y: 31536000,
  year: 31536000,
  years: 31536000,
};

const RELATIVE = /^(?:([-+])(\d+)([a-z]+))?(?:@([a-z]+))?$/;

/** Seconds of a unit name (`m`, `h`, `day`...), or undefined. */
export function unitSecs(unit: string): number | undefined {
  return UNIT_SECS[unit.toLowerCase()];
}

function snap(ms: number, unit: string, raw: string): number {
  const secs = unitSecs(unit);
  if (secs === undefined) throw new SvcError('invalid_time', `unknown time unit "${unit}" in "${raw}"`);
  const d = new Date(ms);
  if (secs === 604800) {
    const day = Math.floor(ms / 86400000) * 86400000;
    return day - ((d.getUTCDay() + 6) % 7) * 86400000; // weeks start on Monday
  }
  if (secs === 2592000) return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  if (secs === 31536000) return Date.UTC(d.getUTCFullYear(), 0, 1);
  return Math.floor(ms / (secs * 1000)) * secs * 1000;
}

/** Times a query may name: years 1 to 9999, which DuckDB's TIMESTAMP holds. */
const MIN_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z (Date.UTC maps years below 100 to 19xx)
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Parses a time value into epoch milliseconds; `nowMs` anchors relative values. Throws invalid_time. */
export function parseTime(raw: string, nowMs: number): number {
  const ms = parseTimeUnchecked(raw, nowMs);
  if (!(ms >= MIN_TIME_MS && ms <= MAX_TIME_MS))
    throw new SvcError('invalid_time', `time "${raw}" is out of range (years 1 to 9999)`);
  return ms;
}

function parseTimeUnchecked(raw: string, nowMs: number): number {
  const v = raw.trim();
  if (v === '') throw new SvcError('invalid_time', 'missing time value');
  if (v.toLowerCase() === 'now') return nowMs;
  if (/^\d{9,10}(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (/^\d{12,13}$/.test(v)) return Number(v);
  const rel = RELATIVE.exec(v.toLowerCase());
  if (rel && (rel[1] || rel[4])) {
    let ms = nowMs;
    if (rel[1]) {
      const secs = unitSecs(rel[3]);
      if (secs === undefined) throw new SvcError('invalid_time', `unknown time unit "${rel[3]}" in "${raw}"`);
      ms += (rel[1] === '-' ? -1 : 1) * Number(rel[2]) * secs * 1000;
    }
    return rel[4] ? snap(ms, rel[4], raw) : ms;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const ms = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isNaN(ms)) return ms;
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(v)) {
    const iso = v.replace(' ', 'T');
    const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new SvcError(
    'invalid_time',
    `cannot parse time "${raw}": want RFC 3339, epoch seconds, now or relative like -15m`,
  );
}

/** True for a time given relative to now (`now`, `-8d`, `-1d@d`, `@h`, `+2h`), not as an instant. */
export function isRelativeTime(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === 'now') return true;
  const rel = RELATIVE.exec(v);
  return rel !== null && Boolean(rel[1] || rel[4]);
}

/** A span like `1m`, `30s`, `1h`, `1d` in seconds; undefined when it is not one. */
export function parseSpan(raw: string): number | undefined {
  const m = /^(\d+)([a-z]+)$/i.exec(raw);
  if (!m) return undefined;
  const unit = unitSecs(m[2]);
  const n = Number(m[1]);
  return unit === undefined || n <= 0 || unit >= 2592000 ? undefined : n * unit;
}

const NICE_SPANS = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 10800, 21600, 43200, 86400, 604800, 2592000];

/** The smallest nice span that covers [fromMs, toMs) in at most `buckets` buckets. */
export function autoSpanSecs(fromMs: number, toMs: number, buckets: number): number {
  const range = Math.max(1, (toMs - fromMs) / 1000);
  return NICE_SPANS.find((s) => range / s <= buckets) ?? NICE_SPANS[NICE_SPANS.length - 1];
}

export function isoFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * An instant as every search answer prints it: RFC 3339 UTC with microseconds (the storage
 * precision), the same text DuckDB's timestamps get (`2024-05-01T10:00:00.123456Z`).
 */
export function isoFromUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = String(Math.round(us - ms * 1000)).padStart(3, '0');
  return new Date(ms).toISOString().replace(/Z$/, micros + 'Z');
}

const EXACT_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An instant as answers print it (`2024-05-01T10:00:00.123456Z`; fewer fraction digits and an
 * offset are read too) in epoch microseconds, exactly: Date.parse would drop the microseconds.
 * Undefined when it is not one or lies outside years 1 to 9999.
 */
export function exactTimeUs(raw: string): number | undefined {
  const m = EXACT_TIME.exec(raw);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3].toUpperCase()}`);
  if (!(ms >= MIN_TIME_MS && ms <= MAX_TIME_MS)) return undefined;
  return ms * 1000 + Number((m[2] ?? '').padEnd(6, '0'));
}
