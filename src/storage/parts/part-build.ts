import { randomBytes } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DOUBLE, DuckDBDataChunk, USMALLINT, VARCHAR, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import type { LogEvent } from '../../events/event.js';
import { fsyncFile } from '../fsync.js';
import { jsonKeyPath } from '../duck.js';
import { ident, lit } from '../sql-quote.js';
import { dayString, DAY_US } from '../partition.js';
import { chooseFields } from '../blocks/block-writer.js';
import { GRANULE_ROWS } from '../blocks/token-filters.js';
import { TokenSet } from '../blocks/token-scan.js';
import { encodeMinuteCounts, fromMinuteMap } from '../blocks/minute-counts.js';
import { encodeValueCounts } from '../blocks/value-counts.js';
import type { BlockField, BlockMeta } from '../blocks/sidecar.js';
import { newPartition, recordEvent, type LivePartition } from '../wal/live-segment.js';
import { guardTime } from '../wal/event-guard.js';

// A part: the block of one batch's events of one env/index/day, written by the decode worker that
// decoded them (docs/storage.md, "Parts"). The worker's own DuckDB sorts and compresses it, the
// token filter and minute counts come from the same pass over the events, and the file is fsynced
// under a temporary name. The writer's commit (part-commit.ts) names and publishes it: that is
// the acknowledgement's durability, with no WAL line, no seal and no read-back.

/** A part written and fsynced under `tmp`, waiting for its commit to give it a name. */
export interface BuiltPart {
  tmp: string;
  meta: Omit<BlockMeta, 'name' | 'createdAt'>;
}

/**
 * Rows per granule (token filter and row group) of a part: a part is small and fresh, so its
 * filters are finer than a merged block's (65,536): a rare term in fresh data reads a few
 * thousand messages per part that may hold it, not the whole part.
 */
export const PART_GRANULE_ROWS = 8192;

/**
 * Parts are ZSTD level 3: a part is written once per batch on the ingest path, where level 6
 * doubled the COPY's CPU (1.8 → 3.4 µs per event of real log lines); the merges that later join a
 * partition's parts write level 6 (block-writer.ts).
 */
const PART_COPY_OPTIONS = `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3, ROW_GROUP_SIZE ${PART_GRANULE_ROWS}, PARQUET_VERSION V2`;

/** Rows appended per DuckDB data chunk (DuckDB's vector size). */
const CHUNK_ROWS = 2048;

/**
 * Writes `events` as parts under `dir`: one per env/index/day, cut into pieces of at most one
 * granule (so a part's one token filter is its one row group's). All or none: on failure the
 * files written so far are removed and the error thrown. Mutates the events (the store's time guard).
 */
export async function buildParts(c: DuckDBConnection, events: LogEvent[], dir: string): Promise<BuiltPart[]> {
  const fallbackUs = Date.now() * 1000;
  const byPart = new Map<string, LogEvent[]>();
  for (const ev of events) {
    guardTime(ev, fallbackUs);
    const key = `${ev.env}\u0001${ev.index}\u0001${Math.floor(ev.timeUs / DAY_US)}`;
    const list = byPart.get(key);
    if (list) list.push(ev);
    else byPart.set(key, [ev]);
  }
  const out: BuiltPart[] = [];
  try {
    for (const list of byPart.values()) {
      if (list.length > GRANULE_ROWS) list.sort((a, b) => a.timeUs - b.timeUs);
      for (let i = 0; i < list.length; i += GRANULE_ROWS) {
        out.push(await buildOne(c, list.slice(i, i + GRANULE_ROWS), dir));
      }
    }
  } catch (e) {
    for (const p of out) rmSync(p.tmp, { force: true });
    throw e;
  }
  return out;
}

/**
 * How a part's host, source or sourcetype reach DuckDB. Handing a string to DuckDB costs about
 * 0.2-0.4 µs, so a value the whole part shares is one SQL literal, and a few distinct values (a
 * batch from many hosts) travel as small integers into a list literal; only many distinct values
 * are appended as strings. Measured per event of real log lines: host as strings 0.44 µs, as
 * indexes 0.13 µs.
 */
type CoreColumn =
  | { kind: 'one'; value: string; counts: Map<string, number> }
  | { kind: 'few'; values: string[]; index: Map<string, number>; counts: Map<string, number> }
  | { kind: 'many' };

const FEW_MAX = 1024;
const CORE_STRINGS = ['host', 'source', 'sourcetype'] as const;
type CoreString = (typeof CORE_STRINGS)[number];

/** A core string column's form, with its events per value (the sidecar's value counts) when it has few. */
function coreColumn(events: LogEvent[], name: CoreString): CoreColumn {
  const index = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const ev of events) {
    const v = ev[name];
    const n = counts.get(v);
    if (n !== undefined) counts.set(v, n + 1);
    else {
      if (index.size === FEW_MAX) return { kind: 'many' };
      index.set(v, index.size);
      counts.set(v, 1);
    }
  }
  const values = [...index.keys()];
  return values.length === 1 ? { kind: 'one', value: values[0], counts } : { kind: 'few', values, index, counts };
}

/** The part's rows as DuckDB holds them before the COPY: the appended columns and each core string's form. */
interface PartRows {
  core: Record<CoreString, CoreColumn>;
  hasF: boolean;
}

/** The part's rows into the worker's DuckDB, a data chunk at a time (one call per column, not per value). */
async function appendRows(
  c: DuckDBConnection,
  events: LogEvent[],
  core: Record<CoreString, CoreColumn>,
): Promise<PartRows> {
  const hasF = events.some(hasFields);
  const columns: { name: string; type: DuckDBType; value: (ev: LogEvent) => unknown }[] = [
    // µs since the epoch as a DOUBLE, the JS number as it is (an integer: guardTime), cast back
    // to BIGINT in the COPY: a BigInt per event was garbage for the worker's young generation
    { name: 't', type: DOUBLE, value: (ev) => ev.timeUs },
    { name: 'message', type: VARCHAR, value: (ev) => ev.message },
  ];
  for (const name of CORE_STRINGS) {
    const col = core[name];
    if (col.kind === 'many') columns.push({ name, type: VARCHAR, value: (ev) => ev[name] });
    else if (col.kind === 'few') columns.push({ name, type: USMALLINT, value: (ev) => col.index.get(ev[name]) });
  }
  if (hasF)
    columns.push({ name: '_f', type: VARCHAR, value: (ev) => (hasFields(ev) ? JSON.stringify(ev.fields) : null) });
  await c.run(
    `CREATE OR REPLACE TEMP TABLE part_rows (${columns.map((x) => `${x.name} ${x.type.toString()}`).join(', ')})`,
  );
  const app = await c.createAppender('part_rows');
  try {
    const chunk = DuckDBDataChunk.create(
      columns.map((x) => x.type),
      CHUNK_ROWS,
    );
    for (let o = 0; o < events.length; o += CHUNK_ROWS) {
      const k = Math.min(CHUNK_ROWS, events.length - o);
      const values = columns.map((x) => {
        const out = new Array<unknown>(k);
        for (let i = 0; i < k; i++) out[i] = x.value(events[o + i]);
        return out;
      });
      chunk.rowCount = k;
      chunk.setColumns(values as never);
      app.appendDataChunk(chunk);
    }
  } finally {
    app.closeSync();
  }
  return { core, hasF };
}

/**
 * The part's events in block order: by source, host (their first appearance: the order only puts
 * alike lines side by side for ZSTD), then time. Sorted here, not by the COPY, so that the token
 * filter of granule i describes exactly the file's rows [i × PART_GRANULE_ROWS, …).
 */
function blockOrder(events: LogEvent[], core: Record<CoreString, CoreColumn>): LogEvent[] {
  const s = sortRanks(events, 'source', core.source);
  const h = sortRanks(events, 'host', core.host);
  const t = Float64Array.from(events, (ev) => ev.timeUs);
  // indexes sorted over typed arrays: no object per event for the young generation to sweep
  const order = Uint32Array.from(events, (_, i) => i);
  order.sort((a, b) => s[a] - s[b] || h[a] - h[b] || t[a] - t[b]);
  return Array.from(order, (i) => events[i]);
}

/** Each event's rank for one core string column: its value's index (few values) or sorted position (many). */
function sortRanks(events: LogEvent[], name: 'source' | 'host', col: CoreColumn): Uint32Array {
  if (col.kind === 'one') return new Uint32Array(events.length);
  let rank = col.kind === 'few' ? col.index : undefined;
  if (!rank) {
    const sorted = [...new Set(events.map((ev) => ev[name]))].sort();
    rank = new Map(sorted.map((v, i) => [v, i]));
  }
  const r = rank;
  return Uint32Array.from(events, (ev) => r.get(ev[name])!);
}

async function buildOne(c: DuckDBConnection, unordered: LogEvent[], dir: string): Promise<BuiltPart> {
  const core = {} as Record<CoreString, CoreColumn>;
  for (const name of CORE_STRINGS) core[name] = coreColumn(unordered, name);
  const events = blockOrder(unordered, core);
  // a part is one env/index/day (buildParts), so one partition's accounting
  const p = newPartition(events[0]);
  const granules: TokenSet[] = [];
  for (let i = 0; i < events.length; i++) {
    const ev = events[i];
    recordEvent(p, ev);
    if (i % PART_GRANULE_ROWS === 0) granules.push(new TokenSet(Math.min(PART_GRANULE_ROWS, events.length - i)));
    granules[granules.length - 1].addText(ev.message);
  }
  const fields = chooseFields([...p.fields].map(([name, f]) => ({ name, ...f })));
  const tmp = join(dir, `part-${randomBytes(8).toString('hex')}.parquet`);
  let rows: PartRows;
  try {
    rows = await appendRows(c, events, core);
    const written = await c.run(`COPY (${partSelect(p, fields, rows)}) TO ${lit(tmp)} (${PART_COPY_OPTIONS})`);
    if (written.rowsChanged !== events.length)
      throw new Error(`BUG: a part wrote ${written.rowsChanged} of ${events.length} rows`);
    fsyncFile(tmp);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  } finally {
    await c.run('DROP TABLE IF EXISTS part_rows');
  }
  const blooms = granules.map((g) => g.toBloom());
  return {
    tmp,
    meta: {
      v: 1,
      env: p.env,
      index: p.index,
      day: dayString(p.day),
      count: p.count,
      minUs: p.minUs,
      maxUs: p.maxUs,
      fields,
      hasExtra: fields.some((f) => !f.promoted),
      granules: {
        rows: PART_GRANULE_ROWS,
        m: blooms.map((b) => b.m),
        b64: blooms.map((b) => b.toBase64()),
        hash: 't2',
      },
      walSeg: null,
      replaces: [],
      bytes: statSync(tmp).size,
      minuteCounts: encodeMinuteCounts(fromMinuteMap(p.minutes ?? new Map<number, number>())),
      valueCounts: encodeValueCounts(
        Object.fromEntries(
          CORE_STRINGS.flatMap((n) => {
            const col = rows.core[n];
            return col.kind === 'many' ? [] : [[n, col.counts]];
          }),
        ),
      ),
    },
  };
}

function hasFields(ev: LogEvent): boolean {
  for (const _ in ev.fields) return true;
  return false;
}

/**
 * The part's columns in block order (source, host, time: alike lines side by side for ZSTD; one
 * row group, so its time statistics are the part's). Promoted fields come from one parse of the
 * fields JSON per row, as a seal extracts them (blocks/seal-blocks.ts), so a part and a sealed
 * block of the same events hold the same values.
 */
function partSelect(p: LivePartition, fields: BlockField[], rows: PartRows): string {
  const promoted = fields.filter((f) => f.promoted);
  const hasExtra = promoted.length < fields.length;
  const extract =
    rows.hasF && promoted.length > 0
      ? `, json_extract_string(_f, [${promoted.map((f) => jsonKeyPath(f.name)).join(', ')}]) AS _x`
      : '';
  const core = (name: CoreString): string => {
    const col = rows.core[name];
    if (col.kind === 'one') return `${lit(col.value)} AS ${name}`;
    if (col.kind === 'few') return `[${col.values.map(lit).join(', ')}][${name} + 1] AS ${name}`;
    return name;
  };
  const cols = [
    'make_timestamp(t::BIGINT) AS _time',
    `${lit(p.env)} AS env`,
    `${lit(p.index)} AS "index"`,
    ...CORE_STRINGS.map(core),
    'message',
    ...promoted.map((f, i) =>
      f.type === 'VARCHAR'
        ? `_x[${i + 1}] AS ${ident(f.name)}`
        : `TRY_CAST(_x[${i + 1}] AS ${f.type}) AS ${ident(f.name)}`,
    ),
    ...(hasExtra ? ['_f AS _extra'] : []),
  ];
  // rows in the order appended (blockOrder): the granules' filters count on it
  return `SELECT ${cols.join(', ')} FROM (SELECT *${extract} FROM part_rows)`;
}
