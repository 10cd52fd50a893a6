import type { IngestPrincipal } from '../../auth/principal.js';
import { forward, nowUs, type IngestContext } from '../common/context.js';
import { decodeJob } from '../common/decode-pool.js';
import { OTLP_DECODE } from './decode-job.js';

/** What an export did: records an index rule refused (a partial success) and the last refusal's reason. */
export interface OtlpExported {
  rejected: number;
  reason: string;
}

/**
 * One OTLP logs export, whatever carried it (OTLP/HTTP route.ts, OTLP/gRPC ../otlp-grpc/route.ts):
 * decodes the (decompressed) ExportLogsServiceRequest, routes its records for `principal` and hands
 * them to the writer without waiting for room. Resolves once the accepted records are durable, as
 * the writer does; rejects with the SvcError of a body that does not decode (invalid_input), a full
 * writer queue or busy decode workers (queue_full) or a gone environment (unknown_environment).
 * Called concurrently by both edges; takes ownership of `body`.
 */
export async function exportOtlp(
  ctx: IngestContext,
  principal: IngestPrincipal,
  body: Uint8Array,
  encoding: 'protobuf' | 'json',
): Promise<OtlpExported> {
  // the body may be handed to a decode worker below (and so emptied here): its size is taken now
  const bytes = body.length;
  const job = {
    body,
    encoding,
    principal,
    envs: ctx.envExists(principal.pin.env) ? [principal.pin.env] : [],
    nowUs: nowUs(ctx),
    limits: ctx.limits,
  };
  // large exports decode on a worker thread (common/decode-pool.ts), small ones right here
  const { batch, rejected, reason } = await decodeJob(ctx.decoder, OTLP_DECODE, job, { wait: false });
  ctx.meter?.rejected(rejected);
  await forward(ctx, batch, { env: principal.pin.env, bytes });
  return { rejected, reason };
}
