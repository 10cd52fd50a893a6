import { doc } from '../doc.js';
import type { ColRef } from '../schema.js';
import { num, str } from '../sql.js';
import { SvcError } from '../../errors/svc-error.js';
import { toNum, toStr } from './coerce.js';
import { tried, type FnDef } from './fn-def.js';
import { relativeTimeSql } from './relative-time.js';
import { strftimeSql, strptimeFormat } from './time-format.js';

/** A value as a TIMESTAMP: a time as it is, else epoch seconds. */
function asTimestamp(r: ColRef): string {
  return r.type === 'time' ? r.sql : `make_timestamp(CAST(${toNum(r)} * 1e6 AS BIGINT))`;
}

/** The time functions of `where` and `eval`: now, strftime, strptime, relative_time. */
export const TIME_FUNCTIONS: Record<string, FnDef> = {
  now: {
    min: 0,
    max: 0,
    type: 'num',
    sql: (_a, nowMs) => num(Math.floor(nowMs / 1000)),
    doc: doc(
      'now()',
      'The time the search started, in epoch seconds.',
      '* | eval age=now() - strptime(created, "%Y-%m-%d")',
    ),
  },
  strftime: tried({
    min: 2,
    max: 2,
    type: 'str',
    sql: (a) => {
      const ts = asTimestamp(a[0]);
      // a constant format may use Splunk's specifiers DuckDB lacks (%F, %T, %+, %3N, %s…)
      return a[1].text === undefined ? `strftime(${ts}, ${toStr(a[1])})` : strftimeSql(ts, a[1].text);
    },
    doc: doc(
      'strftime(t, format)',
      'Formats a time (_time or epoch seconds) as text with a strftime format (%F, %T, %+, %3N and %s included; times are UTC).',
      '* | eval hour=strftime(_time, "%H")',
    ),
  }),
  strptime: {
    min: 2,
    max: 2,
    type: 'num',
    sql: (a) =>
      `(epoch_us(try_strptime(${toStr(a[0])}, ${a[1].text === undefined ? toStr(a[1]) : str(strptimeFormat(a[1].text))})) / 1e6)`,
    doc: doc(
      'strptime(s, format)',
      'Reads text with a strftime format into epoch seconds; null when it does not fit.',
      '* | eval t=strptime(ts, "%d/%m/%Y %H:%M:%S")',
    ),
  },
  relative_time: tried({
    min: 2,
    max: 2,
    type: 'num',
    sql: (a) => {
      if (a[1].text === undefined)
        throw new SvcError('invalid_query', 'relative_time: the time modifier must be a quoted text such as "-1d@d"');
      return `(epoch_us(${relativeTimeSql(asTimestamp(a[0]), a[1].text)}) / 1e6)`;
    },
    doc: doc(
      'relative_time(t, modifier)',
      'The time t (epoch seconds) moved by a Splunk time modifier such as "-1d@d" or "@w1" (UTC), in epoch seconds.',
      '* | where _time >= relative_time(now(), "-1d@d")',
    ),
  }),
};
