import type { LogEvent } from '../events/event.js';
import { kindOfValue } from './field-types.js';
import type { PartRow } from './block-writer.js';

export const DAY_US = 86_400_000_000;

/** Events of one env/index/day inside one WAL segment: a block-to-be, plus its fields so far. */
export interface LivePartition extends PartRow {
  /** Field name → kind bits (field-types.ts) and events carrying it. */
  fields: Map<string, { bits: number; count: number }>;
}

/**
 * What one not-yet-sealed WAL segment holds, kept so search sees unsealed events: the scan reads
 * the segment file itself (DuckDB read_json) and uses these summaries for pruning and columns.
 * Owned by the storage engine's single JS thread.
 */
export class LiveSegment {
  count = 0;
  readonly partitions = new Map<string, LivePartition>();

  constructor(
    readonly seq: number,
    readonly path: string,
  ) {}

  /** Hot path: called for every acknowledged event. */
  record(ev: LogEvent): void {
    const day = Math.floor(ev.timeUs / DAY_US);
    const key = `${ev.env}\u0001${ev.index}\u0001${day}`;
    let p = this.partitions.get(key);
    if (!p) {
      p = { env: ev.env, index: ev.index, day, count: 0, minUs: ev.timeUs, maxUs: ev.timeUs, fields: new Map() };
      this.partitions.set(key, p);
    }
    p.count++;
    if (ev.timeUs < p.minUs) p.minUs = ev.timeUs;
    if (ev.timeUs > p.maxUs) p.maxUs = ev.timeUs;
    const f = ev.fields;
    for (const name in f) {
      const s = p.fields.get(name);
      const k = kindOfValue(f[name]);
      if (s) {
        s.bits |= k;
        s.count++;
      } else p.fields.set(name, { bits: k, count: 1 });
    }
    this.count++;
  }

  /**
   * Adds the accounting of an encoded batch (storage/batch-encode.ts), as if record() had seen each
   * of its events. Takes ownership of `parts`. Must merge every per-event tally record() keeps.
   */
  absorb(parts: LivePartition[]): void {
    for (const q of parts) {
      const key = `${q.env}\u0001${q.index}\u0001${q.day}`;
      const p = this.partitions.get(key);
      this.count += q.count;
      if (!p) {
        this.partitions.set(key, q);
        continue;
      }
      p.count += q.count;
      if (q.minUs < p.minUs) p.minUs = q.minUs;
      if (q.maxUs > p.maxUs) p.maxUs = q.maxUs;
      for (const [name, f] of q.fields) {
        const s = p.fields.get(name);
        if (s) {
          s.bits |= f.bits;
          s.count += f.count;
        } else p.fields.set(name, f);
      }
    }
  }

  addPartition(p: LivePartition): void {
    this.partitions.set(`${p.env}\u0001${p.index}\u0001${p.day}`, p);
    this.count += p.count;
  }
}

/** A closed segment's accounting as JSON (`wal/<seq>.summary.json`), so a restart need not re-read it. */
export function summaryJson(seg: LiveSegment): string {
  return JSON.stringify([...seg.partitions.values()].map((p) => ({ ...p, fields: [...p.fields] })));
}

export function parseSummary(text: string): LivePartition[] {
  const parts = JSON.parse(text) as (Omit<LivePartition, 'fields'> & { fields: [string, { bits: number; count: number }][] })[];
  return parts.map((p) => ({ ...p, fields: new Map(p.fields) }));
}

/** The WAL line of an event: its own JSON (keys timeUs, env, index, host, source, sourcetype, message, fields). */
export function walLine(ev: LogEvent): string {
  return JSON.stringify(ev);
}

/** read_json columns matching walLine. */
export const WAL_COLUMNS_SQL =
  "columns={timeUs: 'BIGINT', env: 'VARCHAR', \"index\": 'VARCHAR', host: 'VARCHAR', source: 'VARCHAR', sourcetype: 'VARCHAR', message: 'VARCHAR', fields: 'JSON'}";

/** A table expression over WAL segment files (torn last lines are skipped). */
export function walReadSql(paths: string[]): string {
  const list = paths.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ');
  return `read_json([${list}], format='newline_delimited', ${WAL_COLUMNS_SQL}, ignore_errors=true)`;
}

export function dayString(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}
