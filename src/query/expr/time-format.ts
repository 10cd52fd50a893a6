import { SvcError } from '../../errors/svc-error.js';
import { str } from '../sql.js';

/**
 * Splunk's strftime/strptime formats in DuckDB. DuckDB lacks some of Splunk's specifiers (`%F`,
 * `%T`, `%+`, `%e`, `%s`, the sub-second `%3N`…), and svc's times are UTC, so `%Z` is `UTC` and
 * `%z` `+0000`. A format is cut into pieces that DuckDB formats and pieces computed in SQL.
 */
const EXPAND: Record<string, string> = {
  F: '%Y-%m-%d',
  T: '%H:%M:%S',
  D: '%m/%d/%y',
  R: '%H:%M',
  '+': '%a %b %e %H:%M:%S %Z %Y',
};
/** Sub-second digits: `%3N` milliseconds, `%6N` microseconds, `%N` and `%9N` nanoseconds (zeros past µs). */
const SUBSECOND: Record<string, string> = { '3': '%g', '6': '%f', '9': '%f000', '': '%f000' };

type Piece = { fmt: string } | { sql: (ts: string) => string };

function pieces(format: string): Piece[] {
  const out: Piece[] = [];
  const fmt = (f: string) => {
    const last = out[out.length - 1];
    if (last && 'fmt' in last) last.fmt += f;
    else out.push({ fmt: f });
  };
  const expanded = format.replace(/%([FTDR+])/g, (_, c: string) => EXPAND[c]);
  for (let i = 0; i < expanded.length; i++) {
    const c = expanded[i];
    if (c !== '%') {
      fmt(c);
      continue;
    }
    const rest = expanded.slice(i + 1);
    const sub = /^(\d?)N/.exec(rest);
    if (sub && Object.hasOwn(SUBSECOND, sub[1])) {
      fmt(SUBSECOND[sub[1]]);
      i += sub[0].length;
      continue;
    }
    if (rest[0] === undefined) throw new SvcError('invalid_query', 'strftime: the format ends with a lone "%"');
    if (rest[0] === 'Z') fmt('UTC');
    else if (rest[0] === 'z') fmt('+0000');
    else if (rest[0] === 's') out.push({ sql: (ts) => `CAST(epoch(${ts}) AS BIGINT)::VARCHAR` });
    else if (rest[0] === 'e') out.push({ sql: (ts) => `lpad(strftime(${ts}, '%-d'), 2, ' ')` });
    else fmt(`%${rest[0]}`);
    i++;
  }
  return out;
}

/** SQL formatting the TIMESTAMP `ts` with a Splunk format given as a constant. */
export function strftimeSql(ts: string, format: string): string {
  const parts = pieces(format).map((p) => ('fmt' in p ? `strftime(${ts}, ${str(p.fmt)})` : p.sql(ts)));
  return parts.length === 0 ? "''" : parts.length === 1 ? parts[0] : `(${parts.join(' || ')})`;
}

/** A Splunk strptime format as DuckDB reads it (only the specifiers that expand to others). */
export function strptimeFormat(format: string): string {
  return format
    .replace(/%([FTDR])/g, (_, c: string) => EXPAND[c])
    .replace(/%3N/g, '%g')
    .replace(/%6N/g, '%f');
}
