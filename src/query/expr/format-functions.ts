import { SvcError } from '../../errors/svc-error.js';
import type { ColRef } from '../schema.js';
import { num } from '../sql.js';
import { toNum, toStr } from './coerce.js';
import { ipNumber, ipValue } from './ip.js';

/**
 * tostring(x, format) as Splunk formats: "commas" (thousands separators; a number with decimals
 * rounded to two), "hex" (`0xFF`, of the whole number) and "duration" (seconds as `HH:MM:SS`, with
 * `D+` in front past a day; fractions of a second dropped). The format must be a constant.
 */
export function tostringSql(x: ColRef, format: ColRef): string {
  const f = format.text?.toLowerCase();
  const n = toNum(x);
  if (f === 'commas')
    return `CASE WHEN ${n} = floor(${n}) THEN format('{:,}', CAST(${n} AS BIGINT)) ELSE format('{:,.2f}', ${n}) END`;
  if (f === 'hex') return `('0x' || upper(to_hex(CAST(${n} AS BIGINT))))`;
  if (f === 'duration') {
    const s = `CAST(floor(${n}) AS BIGINT)`;
    const two = (v: string) => `lpad(CAST(${v} AS VARCHAR), 2, '0')`;
    const days = `${s} // 86400`;
    const clock = `${two(`(${s} % 86400) // 3600`)} || ':' || ${two(`(${s} % 3600) // 60`)} || ':' || ${two(`${s} % 60`)}`;
    return `CASE WHEN ${s} < 0 THEN NULL WHEN ${days} > 0 THEN CAST(${days} AS VARCHAR) || '+' || ${clock} ELSE ${clock} END`;
  }
  throw new SvcError(
    'invalid_query',
    `tostring: unknown format ${format.text === undefined ? '(not a quoted text)' : JSON.stringify(format.text)}: want "commas", "hex" or "duration"`,
  );
}

/** cidrmatch("a.b.c.d/n", ip): the block must be a constant IPv4 CIDR; a value that is no IPv4 address does not match. */
export function cidrmatchSql(cidr: ColRef, ip: ColRef): string {
  const m = cidr.text === undefined ? null : /^([0-9.]+)\/(\d{1,2})$/.exec(cidr.text.trim());
  const base = m ? ipValue(m[1]) : undefined;
  const bits = m ? Number(m[2]) : NaN;
  if (base === undefined || !(bits >= 0 && bits <= 32))
    throw new SvcError(
      'invalid_query',
      `cidrmatch: want an IPv4 block in quotes such as "10.0.0.0/8", not ${cidr.text === undefined ? 'a field or expression' : JSON.stringify(cidr.text)} (IPv6 is not supported)`,
    );
  const size = 2 ** (32 - bits);
  const lo = Math.floor(base / size) * size;
  return `coalesce(${ipNumber(`trim(${toStr(ip)})`)} BETWEEN ${num(lo)} AND ${num(lo + size - 1)}, FALSE)`;
}
