import { SvcError } from '../../errors/svc-error.js';
import { unitSecs } from '../time-range.js';

/**
 * Splunk's relative_time(t, "<modifier>") in SQL: offsets (`-1d`, `+30m`, `-2mon`), a snap to the
 * start of a unit (`@d`, `@h`, `@mon`, `@y`, `@w0`…`@w6` for a weekday, `@w` being Sunday as in
 * Splunk) and offsets after the snap (`-1d@d+8h`). Months and years are calendar ones; svc's times
 * are UTC, so days start at midnight UTC. The modifier must be a constant.
 */
const PART = /([-+])(\d*)([a-z]+)|@([a-z]+)(\d?)/gy;

const SNAP_UNIT: Record<number, string> = { 1: 'second', 60: 'minute', 3600: 'hour', 86400: 'day' };

function fail(spec: string, why: string): SvcError {
  return new SvcError('invalid_query', `relative_time: cannot read the time modifier ${JSON.stringify(spec)}: ${why}`);
}

function offsetSql(ts: string, sign: string, n: number, unit: string, spec: string): string {
  const secs = unitSecs(unit);
  if (secs === undefined) throw fail(spec, `unknown time unit "${unit}"`);
  if (secs === 2592000 || secs === 31536000) {
    const months = n * (secs === 2592000 ? 1 : 12);
    return `(${ts} ${sign} to_months(${months}))`;
  }
  return `(${ts} ${sign} to_microseconds(${n * secs * 1_000_000}))`;
}

function snapSql(ts: string, unit: string, day: string, spec: string): string {
  const secs = unitSecs(unit);
  if (secs === undefined) throw fail(spec, `unknown time unit "${unit}"`);
  if (secs === 604800) {
    const w = Number(day || '0');
    return `(date_trunc('day', ${ts}) - to_days(CAST((dayofweek(${ts}) - ${w} + 7) % 7 AS INTEGER)))`;
  }
  if (day) throw fail(spec, `only a week snap takes a day number (@w0 to @w6)`);
  if (secs === 2592000) return `date_trunc('month', ${ts})`;
  if (secs === 31536000) return `date_trunc('year', ${ts})`;
  const name = SNAP_UNIT[secs];
  if (!name) throw fail(spec, `cannot snap to "${unit}"`);
  return `date_trunc('${name}', ${ts})`;
}

/** SQL of the TIMESTAMP `ts` moved by the modifier `spec`. */
export function relativeTimeSql(ts: string, spec: string): string {
  const s = spec.trim().toLowerCase();
  if (s === '' || s === 'now') return ts;
  let out = ts;
  let at = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(s); m; m = PART.exec(s)) {
    at = PART.lastIndex;
    if (m[1]) out = offsetSql(out, m[1], m[2] === '' ? 1 : Number(m[2]), m[3], spec);
    else out = snapSql(out, m[4], m[5], spec);
  }
  if (at !== s.length) throw fail(spec, 'want offsets such as -1d or +30m and a snap such as @d');
  return out;
}
