import type { IngestPrincipal } from '../../auth/principal.js';
import { isSvcError, SvcError } from '../../errors/svc-error.js';
import type { LogEvent } from '../../events/event.js';
import type { EventLimits } from '../../events/limits.js';
import { timeContext, type TimeContext } from '../../events/timestamp.js';
import { TargetResolver } from '../common/context.js';
import type { DecodeKind } from '../common/decode-pool.js';
import { decodeJsonRequest, decodeProtobufRequest, requestToEvents, type ExportRequest } from './decode.js';

/**
 * One OTLP export to decode, as plain data so it runs on the event loop or a decode worker
 * (ingest/common/decode-pool.ts) with the same answer: protobuf decoding and the records'
 * mapping cost ~30 µs per record, too much for the event loop at shipper rates.
 */
export interface OtlpJob {
  /** The decompressed body. */
  body: Uint8Array;
  encoding: 'protobuf' | 'json';
  principal: IngestPrincipal;
  /** Names of the environments that exist now (the token's env must be one). */
  envs: string[];
  nowUs: number;
  /** Size, field count and time limits of every event (events/limits.ts). */
  limits: EventLimits;
}

/** The accepted records as events, and the records an index rule refused (a partial success). */
export interface OtlpDecoded {
  events: LogEvent[];
  rejected: number;
  reason: string;
}

/**
 * Decodes an export and routes its records. Throws SvcError for a body that does not decode and
 * unknown_environment when the token's env is gone; a record whose index is refused is counted.
 */
export function decodeOtlpJob(job: OtlpJob): OtlpDecoded {
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  const parsed = job.encoding === 'protobuf' ? decodeProtobufRequest(body) : decodeJsonRequest(body.toString('utf8'));
  const envs = new Set(job.envs);
  const targets = new TargetResolver({ envExists: (name) => envs.has(name) }, job.principal);
  const events: LogEvent[] = [];
  let rejected = 0;
  let reason = '';
  // the zone does not matter: OTLP times are epoch nanoseconds
  const time = timeContext('UTC', job.nowUs / 1000, job.limits.maxFutureSecs);
  for (const d of recordsOf(parsed, time, job.limits)) {
    if ('refused' in d) {
      rejected++;
      reason = d.refused;
      continue;
    }
    const { index, event } = d;
    try {
      const t = targets.resolve(index);
      event.env = t.env;
      event.index = t.index;
      events.push(event);
    } catch (e) {
      if (!isSvcError(e) || e.code === 'unknown_environment') throw e;
      rejected++;
      reason = e.message;
    }
  }
  return { events, rejected, reason };
}

/**
 * requestToEvents, with a last guard: OTLP/JSON is checked for its containers' shapes
 * (decode.ts checkShape), and a value of a wrong type that still slips through is the sender's
 * 400 naming it, never a 500.
 */
function recordsOf(parsed: ExportRequest, time: TimeContext, limits: EventLimits): ReturnType<typeof requestToEvents> {
  try {
    return requestToEvents(parsed, time, limits);
  } catch (e) {
    if (e instanceof TypeError)
      throw new SvcError('invalid_input', `cannot read ExportLogsServiceRequest: ${e.message}`);
    throw e;
  }
}

/** OTLP exports as a decode kind: large ones go to a decode worker. */
export const OTLP_DECODE: DecodeKind<OtlpJob, OtlpDecoded> = { name: 'otlp', decode: decodeOtlpJob };
