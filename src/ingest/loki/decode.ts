import snappy from 'snappyjs';
import { SvcError } from '../../errors/svc-error.js';
import type { FieldValue, LogEvent } from '../../events/event.js';
import { LabelSyntaxError, parseLabels } from './labels.js';
import { PushRequest, type PushRequestMsg } from './push-proto.js';

/**
 * Loki push bodies (protobuf or JSON) → events still missing env/index. Pure: no HTTP, no auth.
 * Labels and structured metadata become fields; the label `index` (when the token pins no index)
 * chooses the index and is not kept as a field.
 */

export interface LokiEntry {
  timeUs: number;
  line: string;
  metadata?: Record<string, string>;
}

export interface LokiStream {
  labels: Record<string, string>;
  entries: LokiEntry[];
}

type LongLike = number | string | { toNumber(): number };

function longToNumber(v: LongLike | undefined): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return v.toNumber();
}

/** Snappy block format → PushRequest. Throws invalid_input / body_too_large. */
export function decodeProtobuf(body: Buffer, maxBytes: number): LokiStream[] {
  let raw: Uint8Array;
  try {
    raw = snappy.uncompress(body, maxBytes);
  } catch (e) {
    const msg = (e as Error).message;
    if (/too big/.test(msg)) throw new SvcError('body_too_large', `decompressed body is larger than ${maxBytes} bytes`);
    throw new SvcError('invalid_input', `cannot decompress snappy body: ${msg}`);
  }
  let msg: PushRequestMsg;
  try {
    msg = PushRequest.decode(raw) as unknown as PushRequestMsg;
  } catch (e) {
    throw new SvcError('invalid_input', `cannot decode push request: ${(e as Error).message}`);
  }
  return (msg.streams ?? []).map((s) => ({
    labels: labelsOf(s.labels ?? '{}'),
    entries: (s.entries ?? []).map((e) => ({
      timeUs: longToNumber(e.timestamp?.seconds) * 1_000_000 + Math.floor((e.timestamp?.nanos ?? 0) / 1000),
      line: e.line ?? '',
      metadata: e.structuredMetadata?.length ? Object.fromEntries(e.structuredMetadata.map((p) => [p.name ?? '', p.value ?? ''])) : undefined,
    })),
  }));
}

function labelsOf(s: string): Record<string, string> {
  try {
    return parseLabels(s);
  } catch (e) {
    if (e instanceof LabelSyntaxError) throw new SvcError('invalid_input', e.message);
    throw e;
  }
}

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
