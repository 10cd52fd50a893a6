import { SvcError } from '../../errors/svc-error.js';
import { addUnique, type FieldValue, type LogEvent } from '../../events/event.js';
import { DEFAULT_EVENT_LIMITS, eventTime, fitEvent, jsonText, type EventLimits } from '../../events/limits.js';
import type { TimeContext } from '../../events/timestamp.js';
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
  if (!Array.isArray(v) || v.length < 2 || typeof v[1] !== 'string')
    throw new SvcError('invalid_input', `cannot parse values[${i}]: want ["<ns>", "<line>"(, {metadata})]`);
  const timeUs = nsToUs(v[0]);
  if (timeUs === undefined)
    throw new SvcError('invalid_input', `cannot parse timestamp ${quoted(v[0])} of values[${i}]`);
  const meta =
    v[2] && typeof v[2] === 'object'
      ? Object.fromEntries(Object.entries(v[2] as Record<string, unknown>).map(([k, x]) => [k, labelText(x)]))
      : undefined;
  return { timeUs, rawTime: v[0] as string | number, line: v[1], metadata: meta };
}

/**
 * A label or metadata value as text. Loki's are strings; anything else a sender puts there is
 * kept as its JSON text (String() of an object can throw, and JSON of a deep one is bounded).
 */
function labelText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' && v !== null ? jsonText(v, 1) : String(v);
}

/** A bad value for a message: a string quoted (cut short), anything else by its type (it may be nested without bound). */
function quoted(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  return typeof v === 'number' ? String(v) : `of type ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v}`;
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
    labels: Object.fromEntries(Object.entries(s?.stream ?? {}).map(([k, v]) => [k, labelText(v)])),
    entries: (Array.isArray(s?.values) ? s.values : []).map(jsonEntry),
  }));
}

export interface LokiDecoded {
  index?: string;
  event: LogEvent;
}

/** What streamsToEvents made of a push: the events kept, and why entries were refused (by a limit). */
export interface LokiEvents {
  decoded: LokiDecoded[];
  /** One line per refused entry, naming its stream and entry (at most MAX_REFUSALS). */
  refusals: string[];
  refused: number;
}

const MAX_REFUSALS = 10;

/**
 * Streams → events: host/source from the usual labels, every label and metadata pair as a field.
 * A time outside the window takes the arrival time (limits.ts eventTime); an entry that breaks a
 * limit (fitEvent) is refused and named, the other entries are kept, as Loki keeps the valid
 * entries of a push and answers 400 naming the rest.
 */
export function streamsToEvents(
  streams: LokiStream[],
  time: TimeContext,
  limits: EventLimits = DEFAULT_EVENT_LIMITS,
): LokiEvents {
  const out: LokiEvents = { decoded: [], refusals: [], refused: 0 };
  for (const s of streams) {
    const { index, ...labels } = s.labels;
    const host = labels.host ?? labels.hostname ?? labels.instance ?? '';
    const source = labels.filename ?? labels.job ?? labels.service_name ?? '';
    const sourcetype = labels.sourcetype ?? 'loki';
    for (let i = 0; i < s.entries.length; i++) {
      const e = s.entries[i];
      const fields: Record<string, FieldValue> = { ...labels };
      // structured metadata named like a label keeps both values: the metadata's is <name>_2 (event.ts addUnique)
      if (e.metadata) for (const k in e.metadata) addUnique(fields, k, e.metadata[k]);
      const timeUs = eventTime(e.timeUs, e.rawTime ?? `${e.timeUs}000`, time.nowUs, time, fields);
      const event: LogEvent = { timeUs, env: '', index: '', host, source, sourcetype, message: e.line, fields };
      const refused = fitEvent(event, limits);
      if (refused === undefined) out.decoded.push({ index: index || undefined, event });
      else if (out.refused++ < MAX_REFUSALS)
        out.refusals.push(`stream ${streamName(s.labels)}: entry ${i}: ${refused}`);
    }
  }
  return out;
}

/** A stream's labels as Loki writes a selector, cut short: `{job="x", host="y"}`. */
function streamName(labels: Record<string, string>): string {
  const text = `{${Object.entries(labels)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')}}`;
  return text.length > 200 ? `${text.slice(0, 200)}…}` : text;
}
