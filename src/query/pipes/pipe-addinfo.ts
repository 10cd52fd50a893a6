import { doc } from '../doc.js';
import { num, str } from '../sql.js';
import type { PipeDef } from './pipe.js';

/**
 * `addinfo` (Splunk's addinfo): adds to every row the search's own facts, as epoch seconds:
 * `info_min_time` and `info_max_time`, the time range it searched (the request's from/to narrowed
 * by the query's earliest/latest; never the data's extent), `info_search_time`, when it ran (the
 * now of relative times), and `info_sid`, the run's id. As in Splunk, a range without a start
 * gives 0 and one without an end the text `+Infinity`. svc keeps no search jobs: `info_sid` is the
 * run's start time as Splunk writes an ad hoc search's id (`<epoch seconds>.<ms>`).
 */
export interface AddinfoPipe {
  kind: 'addinfo';
}

export const ADDINFO_FIELDS = ['info_min_time', 'info_max_time', 'info_search_time', 'info_sid'];

const secs = (ms: number) => `CAST(${num(ms / 1000)} AS DOUBLE)`;

export const addinfoPipe: PipeDef<AddinfoPipe> = {
  name: 'addinfo',
  doc: doc(
    'addinfo',
    'Adds the search’s time range (info_min_time, info_max_time), run time (info_search_time) and id (info_sid) to every row, in epoch seconds.',
    '* | stats count by host | addinfo | eval per_minute=count / ((info_max_time - info_min_time) / 60)',
  ),
  parse: () => ({ kind: 'addinfo' }),
  print: () => 'addinfo',
  reads: () => [],
  writes: () => ADDINFO_FIELDS,
  compile(_n, b) {
    const { fromMs, toMs } = b.searchRange;
    b.setColumns([
      { name: 'info_min_time', sql: secs(fromMs ?? 0), type: 'num' },
      toMs === undefined
        ? { name: 'info_max_time', sql: str('+Infinity'), type: 'str' }
        : { name: 'info_max_time', sql: secs(toMs), type: 'num' },
      { name: 'info_search_time', sql: secs(b.nowMs), type: 'num' },
      { name: 'info_sid', sql: str((b.nowMs / 1000).toFixed(3)), type: 'str' },
    ]);
  },
};
