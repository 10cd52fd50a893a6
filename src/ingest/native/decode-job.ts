import type { EventDefaults } from '../../events/flatten.js';
import type { EventLimits } from '../../events/limits.js';
import { timeContext } from '../../events/timestamp.js';
import type { DecodeKind } from '../common/decode-pool.js';
import { firstContent } from '../common/lines.js';
import { decodeJson, decodeNdjson, decodeText, type DecodeResult } from './decode.js';

/**
 * One native ingest body to decode: everything the decoders need, as plain data, so the job can
 * run on the event loop or in a decode worker (common/decode-pool.ts) with the same result.
 */
export interface DecodeJob {
  /** Lowercase media type without parameters (common/body.ts mediaType). */
  mediaType: string;
  /** The decompressed body. */
  body: Uint8Array;
  defaults: EventDefaults;
  /** SVC_TIMEZONE, for timestamps without a zone. */
  timezone: string;
  /** The request's "now": arrival time and the rule for yearless dates. */
  nowMs: number;
  /** Size, field count and time limits of every event (events/limits.ts). */
  limits: EventLimits;
}

type Decoder = typeof decodeText;

const NDJSON_TYPES = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/jsonlines',
  'application/json-seq',
]);

/** The decoder for a media type (lowercase, no parameters), sniffing the body when the type says nothing. */
export function decoderFor(mediaType: string, body: Buffer): Decoder {
  if (mediaType.startsWith('text/')) return decodeText;
  if (mediaType === 'application/json') return decodeJson;
  if (NDJSON_TYPES.has(mediaType) || mediaType.endsWith('+json') || mediaType.endsWith('ndjson')) return decodeNdjson;
  return body[firstContent(body)] === 0x7b /* { */ ? decodeNdjson : decodeText;
}

/** Decodes a body into events and its malformed lines. Pure: the same answer on any thread. */
export function runDecodeJob(job: DecodeJob): DecodeResult {
  const body = Buffer.isBuffer(job.body)
    ? job.body
    : Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  return decoderFor(job.mediaType, body)(
    body,
    job.defaults,
    timeContext(job.timezone, job.nowMs, job.limits.maxFutureSecs),
    job.limits,
  );
}

/** Native ingest bodies as a decode kind: large ones go to a decode worker. */
export const NATIVE_DECODE: DecodeKind<DecodeJob, DecodeResult> = { name: 'native', decode: runDecodeJob };
