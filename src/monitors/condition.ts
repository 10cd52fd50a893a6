import { SvcError } from '../errors/svc-error.js';
import { parse } from '../query/parser.js';
import type { SearchResult } from '../query/types.js';
import type { JsonValue } from '../query/results.js';
import type { GroupVerdict } from './types.js';

export type { GroupVerdict } from './types.js';

// A monitor's threshold condition and how a search result is judged by it: one verdict per group.

export type ThresholdOp = '>' | '>=' | '<' | '<=' | '==' | '!=';

export interface Threshold {
  /** A result column (`count`, `p95_ms`); for a search without a table, only `count` (events matched). */
  field: string;
  op: ThresholdOp;
  value: number;
}

/** `count > 10`, `"p95 ms" >= 500`, `errors == 0`. Throws invalid_input naming the problem. */
export function parseThreshold(text: string): Threshold {
  const m = /^\s*(?:"([^"]+)"|([A-Za-z_][\w.()-]*))\s*(>=|<=|==|!=|>|<|=)\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m)
    throw new SvcError(
      'invalid_input',
      `condition.threshold: want "<column> <op> <number>" such as "count > 10" (got ${JSON.stringify(text)})`,
      { details: { field: 'condition.threshold' } },
    );
  const op = (m[3] === '=' ? '==' : m[3]) as ThresholdOp;
  return { field: m[1] ?? m[2], op, value: Number(m[4]) };
}

export function printThreshold(t: Threshold): string {
  return `${/^[A-Za-z_][\w.()-]*$/.test(t.field) ? t.field : JSON.stringify(t.field)} ${t.op} ${t.value}`;
}

function holds(v: number, t: Threshold): boolean {
  switch (t.op) {
    case '>':
      return v > t.value;
    case '>=':
      return v >= t.value;
    case '<':
      return v < t.value;
    case '<=':
      return v <= t.value;
    case '==':
      return v === t.value;
    case '!=':
      return v !== t.value;
  }
}

/** The `by` fields of the query's last `stats`: the groups of a monitor that names none. */
export function groupFieldsOf(query: string): string[] {
  const stats = parse(query).pipes.filter((p) => p.kind === 'stats');
  const last = stats[stats.length - 1] as { by?: string[] } | undefined;
  return last?.by ?? [];
}

/**
 * Judges a result. A table: one verdict per row (rows of one group are merged, any row triggering
 * triggers it), the value from the condition's column; a row whose value is not a number does not
 * trigger. No table: one verdict for `count` = events matched. A condition naming a column the
 * result lacks is an error (the run fails; it is not "not triggered").
 */
export function judge(result: SearchResult, t: Threshold, groupBy: string[]): GroupVerdict[] {
  if (!result.columns || !result.rows) {
    if (t.field !== 'count')
      throw new SvcError(
        'invalid_input',
        `the condition reads "${t.field}", but the search returns events, not a table: use "count" or end the query with a stats`,
      );
    const value = result.meta.matched;
    return [{ group: '*', value, triggered: holds(value, t) }];
  }
  const col = result.columns.indexOf(t.field);
  if (col < 0)
    throw new SvcError(
      'invalid_input',
      `the condition reads "${t.field}", which the result lacks (columns: ${result.columns.join(', ')})`,
    );
  const keys = groupBy.map((f) => {
    const i = result.columns!.indexOf(f);
    if (i < 0)
      throw new SvcError(
        'invalid_input',
        `groupBy names "${f}", which the result lacks (columns: ${result.columns!.join(', ')})`,
      );
    return i;
  });
  // no rows: a count-like condition sees 0 (nothing matched), so `count < 1` can fire on silence
  if (result.rows.length === 0 && keys.length === 0) return [{ group: '*', value: 0, triggered: holds(0, t) }];
  const byGroup = new Map<string, GroupVerdict>();
  for (const row of result.rows) {
    // the rows are JSON (query/results.ts jsonValue)
    const group = keys.length
      ? keys
          .map((i, n) => `${groupBy[n]}=${row[i] === null || row[i] === undefined ? '' : String(row[i] as JsonValue)}`)
          .join(',')
      : '*';
    const raw = row[col];
    const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    const triggered = Number.isFinite(value) && holds(value, t);
    const prev = byGroup.get(group);
    if (!prev || (triggered && !prev.triggered))
      byGroup.set(group, { group, value: Number.isFinite(value) ? value : 0, triggered });
  }
  return [...byGroup.values()];
}
