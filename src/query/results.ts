import { isoFromUs } from './time-range.js';
import type { EventJson } from './types.js';
import { CORE_NAMES } from './schema.js';
import type { TimechartInfo } from './stages.js';
import { pivotSeries, shapeChart } from './results-chart.js';

/** Milliseconds since `t0` (a performance.now() reading), to 0.01 ms: every answer's meta.tookMs. */
export function elapsedMs(t0: number): number {
  return Math.round((performance.now() - t0) * 100) / 100;
}

/** What jsonValue answers. */
export type JsonValue = string | number | boolean | null | JsonValue[];

/** A DuckDB result value as plain JSON: numbers, strings, booleans, arrays, null. */
export function jsonValue(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint')
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(jsonValue);
  const items = (v as { items?: unknown[] }).items;
  if (Array.isArray(items)) return items.map(jsonValue);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- DuckDB's other values (decimals, intervals, structs, …) each print themselves
  return String(v);
}

/** One result row of an event stage as the API's event: core columns on top, the rest in `fields`. */
export function toEvent(columns: string[], row: unknown[]): EventJson {
  const ev: EventJson = { time: '', env: '', index: '', host: '', source: '', sourcetype: '', message: '', fields: {} };
  columns.forEach((c, i) => {
    const v = jsonValue(row[i]);
    if (c === '_time') ev.time = typeof v === 'string' ? v : '';
    else if (CORE_NAMES.has(c)) (ev as unknown as Record<string, unknown>)[c] = v === null ? '' : String(v);
    // an own property even for "__proto__" (a plain assignment would set the prototype, hiding the field)
    else if (v !== null && c !== '__ord')
      Object.defineProperty(ev.fields, c, { value: v, enumerable: true, writable: true, configurable: true });
  });
  return ev;
}

const MAX_BUCKETS = 10_000;

/**
 * Shapes a final timechart: fills empty buckets between the first and last (0 for count and dc,
 * null otherwise) and, with `by`, pivots one column per value (per aggregation when several).
 * A final chart is pivoted only (results-chart.ts).
 */
export function shapeTimechart(
  info: TimechartInfo,
  columns: string[],
  rows: unknown[][],
): { columns: string[]; rows: unknown[][] } {
  if (info.over !== undefined) return shapeChart({ ...info, over: info.over }, columns, rows);
  if (rows.length === 0) return { columns, rows };
  const spanMs = info.spanSecs * 1000;
  const ti = columns.indexOf('_time');
  const times = rows.map((r) => Date.parse(String(r[ti])));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const buckets: number[] = [];
  for (let t = first; t <= last && buckets.length < MAX_BUCKETS; t += spanMs) buckets.push(t);
  const fill = info.aggs.map((a) => (a.zero ? 0 : null));
  const iso = (t: number) => isoFromUs(t * 1000);
  if (!info.by) {
    const byTime = new Map(rows.map((r, i) => [times[i], r]));
    return { columns, rows: buckets.map((t) => byTime.get(t) ?? [iso(t), ...fill]) };
  }
  const p = pivotSeries(info, columns, rows, {
    by: info.by,
    key: (_, i) => times[i],
    label: (v) => String(jsonValue(v)),
  });
  return { columns: ['_time', ...p.names], rows: buckets.map((t) => [iso(t), ...(p.cells.get(t) ?? p.empty())]) };
}
