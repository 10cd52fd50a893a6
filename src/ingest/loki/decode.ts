import { SvcError } from '../../errors/svc-error.js';
import type { FieldValue, LogEvent } from '../../events/event.js';
import type { LokiEntry, LokiStream } from './streams.js';

export { decodeProtobuf } from './decode-protobuf.js';
export type { LokiEntry, LokiStream } from './streams.js';

/**
 * Loki push bodies (JSON here, protobuf in decode-protobuf.ts) → events still missing env/index. Pure: no HTTP, no auth.
 * Labels and structured metadata become fields; the label `index` (when the token pins no index)
 * chooses the index and is not kept as a field.
 */

/** Nanoseconds since the epoch as a decimal string (or number) → µs, keeping µs digits exactly. */
export function nsToUs(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.floor(v / 1000) : undefined;
  if (typeof v !== 'string' || !/^\d{1,20}$/.test(v)) return undefined;
  return v.length <= 3 ? 0 : Number(v.slice(0, -3));
}

function jsonEntry(v: unknown, i: number): LokiEntry {
  if (!Array.isArray(v) || v.length < 2 || typeof v[1] !== 'string') throw new SvcError('invalid_input', `cannot parse values[${i}]: want ["<ns>", "<line>"(, {metadata})]`);
  const timeUs = nsToUs(v[0]);
  if (timeUs === undefined) throw new SvcError('invalid_input', `cannot parse timestamp ${JSON.stringify(v[0])} of values[${i}]`);
  const meta = v[2] && typeof v[2] === 'object' ? Object.fromEntries(Object.entries(v[2] as Record<string, unknown>).map(([k, x]) => [k, String(x)])) : undefined;
  return { timeUs, line: v[1], metadata: meta };
}

/** `{"streams":[{"stream":{...},"values":[["<ns>","line",{meta}?], ...]}]}`. */
export function decodeJson(text: string): LokiStream[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SvcError('invalid_json', `cannot parse JSON body: ${(e as Error).message}`);
  }
  const streams = (doc as { streams?: unknown })?.streams;
  if (!Array.isArray(streams)) throw new SvcError('invalid_input', 'missing "streams" array');
  return streams.map((s: { stream?: Record<string, unknown>; values?: unknown[] }) => ({
    labels: Object.fromEntries(Object.entries(s?.stream ?? {}).map(([k, v]) => [k, String(v)])),
    entries: (Array.isArray(s?.values) ? s.values : []).map(jsonEntry),
  }));
}

export interface LokiDecoded {
  index?: string;
  event: LogEvent;
}

/** Streams → events: host/source from the usual labels, every label and metadata pair as a field. */
export function streamsToEvents(streams: LokiStream[]): LokiDecoded[] {
  const out: LokiDecoded[] = [];
  for (const s of streams) {
    const { index, ...labels } = s.labels;
    const host = labels.host ?? labels.hostname ?? labels.instance ?? '';
    const source = labels.filename ?? labels.job ?? labels.service_name ?? '';
    const sourcetype = labels.sourcetype ?? 'loki';
    for (const e of s.entries) {
      const fields: Record<string, FieldValue> = { ...labels, ...e.metadata };
      out.push({ index: index || undefined, event: { timeUs: e.timeUs, env: '', index: '', host, source, sourcetype, message: e.line, fields } });
    }
  }
  return out;
}
