import type { Principal } from '../../auth/principal.js';
import { resolveIngestTarget } from '../../auth/rbac.js';
import { DEFAULT_INDEX } from '../../events/event.js';
import type { EventDefaults } from '../../events/flatten.js';
import { batchSize } from '../../events/writer.js';
import { requireEnv, submit, type IngestContext } from '../common/context.js';
import { decompressBody } from '../common/body.js';
import { decodeJob } from '../common/decode-pool.js';
import type { LineError } from './decode.js';
import { NATIVE_DECODE } from './decode-job.js';
import { NATIVE_MAX_WAIT_MS } from '../common/env-limits.js';

/**
 * Native ingest (`POST /api/ingest`, docs/decisions/0006-canonical-event.md), free of HTTP: target →
 * decompress → decode → Writer.write(events, { wait: true }). A full writer queue makes the call wait, never
 * fail; an env over its ingest limit makes it wait up to NATIVE_MAX_WAIT_MS, then fail rate_limited (429).
 *
 * Body formats by Content-Type: `text/*` → one event per line; `application/json` → a JSON
 * array of objects, one (maybe pretty-printed) object, or NDJSON; `application/x-ndjson` and the
 * other NDJSON / JSON-lines names → NDJSON; no or any other type (curl's default form type) →
 * NDJSON when the body starts with `{`, else text.
 */

export interface NativeQuery {
  env?: string;
  index?: string;
  /** Defaults for events that do not name their own host / source / sourcetype. */
  host?: string;
  source?: string;
  sourcetype?: string;
}

export interface NativeRequest {
  query: NativeQuery;
  /** Lowercase media type of the Content-Type, without parameters (common/body.ts mediaType). */
  mediaType: string;
  contentEncoding: string | undefined;
  body: Buffer;
}

export interface IngestAnswer {
  ingested: number;
  errors: number;
  firstErrors: LineError[];
}

/**
 * Ingests one request. Throws SvcError: insufficient_scope / access_denied / reserved_name (not an
 * ingest token, or a query naming another env/index than the token's pin), unknown_environment,
 * body_too_large, unsupported_media_type, invalid_input (corrupt gzip).
 */
export async function ingestNative(
  ctx: IngestContext,
  principal: Principal,
  req: NativeRequest,
): Promise<IngestAnswer> {
  const target = resolveIngestTarget(principal, { env: req.query.env, index: req.query.index }, DEFAULT_INDEX);
  requireEnv(ctx, target.env);
  // an env past its limit: the request waits its turn before its body is decompressed and decoded
  const charged = ctx.waitTurn ? await ctx.waitTurn(target.env, NATIVE_MAX_WAIT_MS) : undefined;
  try {
    return await decodeAndSubmit(ctx, req, target, charged);
  } finally {
    charged?.();
  }
}

async function decodeAndSubmit(
  ctx: IngestContext,
  req: NativeRequest,
  target: { env: string; index: string },
  charged: (() => void) | undefined,
): Promise<IngestAnswer> {
  const body = await decompressBody(req.body, req.contentEncoding, ctx.maxBodyBytes);
  // the body may be handed to a decode worker below (and so emptied here): its size is taken now
  const bytes = body.length;
  const nowMs = ctx.clock.now();
  const defaults: EventDefaults = {
    env: target.env,
    index: target.index,
    host: req.query.host ?? '',
    source: req.query.source ?? '',
    sourcetype: req.query.sourcetype ?? '',
    timeUs: nowMs * 1000,
  };
  const job = { mediaType: req.mediaType, body, defaults, timezone: ctx.timezone, nowMs, limits: ctx.limits };
  // large bodies decode on a worker thread (common/decode-pool.ts); small ones are cheaper inline
  const r = await decodeJob(ctx.decoder, NATIVE_DECODE, job);
  const ingested = batchSize(r.batch);
  ctx.meter?.rejected(r.errors);
  // the whole request is one batch: one WAL group commit, acknowledged together
  await submit(ctx, r.batch, { env: target.env, bytes }, { wait: true, maxWaitMs: NATIVE_MAX_WAIT_MS, charged });
  return { ingested, errors: r.errors, firstErrors: r.firstErrors };
}
