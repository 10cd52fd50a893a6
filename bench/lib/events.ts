import { openSync, readSync, closeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { FieldValue, LogEvent } from '../../src/events/event.js';
import type { JsonValue } from '../../src/query/results.js';

const CORE = new Set(['_time', 'host', 'source', 'sourcetype', 'message']);

/**
 * A data-set line as a LogEvent, for driving the Writer directly (the native ingest route does the
 * full job with time parsing and flattening; data-set lines are already flat with an ISO `_time`).
 */
export function lineToEvent(line: string, env = 'default', index = 'main'): LogEvent {
  const o = JSON.parse(line) as Record<string, JsonValue>;
  const fields: Record<string, FieldValue> = {};
  for (const k in o) {
    if (CORE.has(k)) continue;
    const v = o[k];
    if (v === null || v === undefined) continue;
    fields[k] = typeof v === 'object' ? JSON.stringify(v) : v;
  }
  return {
    timeUs: Date.parse(o._time as string) * 1000,
    env,
    index,
    host: String(o.host ?? ''),
    source: String(o.source ?? ''),
    sourcetype: String(o.sourcetype ?? ''),
    message: typeof o.message === 'string' ? o.message : line,
    fields,
  };
}

/** Reads an NDJSON file in large chunks and yields batches of whole lines (no readline overhead), at most `maxLines` in all. */
export function* lineBatches(path: string, batchLines: number, maxLines = Infinity): Generator<string[]> {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(8 << 20);
  let rest = '';
  let batch: string[] = [];
  let left = maxLines;
  const dec = new StringDecoder('utf8'); // a chunk may end inside a multi-byte character
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + dec.write(buf.subarray(0, n));
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        if (nl > start) batch.push(text.slice(start, nl));
        start = nl + 1;
        if (batch.length === batchLines || batch.length === left) {
          left -= batch.length;
          yield batch;
          batch = [];
          if (left === 0) return;
        }
      }
      rest = text.slice(start);
    }
    if (rest.length > 0) batch.push(rest);
    if (batch.length > 0) yield batch;
  } finally {
    closeSync(fd);
  }
}
