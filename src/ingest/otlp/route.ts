import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, isSvcError } from '../../errors/svc-error.js';
import type { LogEvent } from '../../events/event.js';
import { STATUS_BY_KIND, toSvcError } from '../../http/errors.js';
import { extractToken } from '../../http/ingest-token.js';
import { bodyOf, header, useRawBodies } from '../../http/raw-body.js';
import { decompressBody, mediaType } from '../common/body.js';
import { authorize, forward, nowUs, type IngestContext } from '../common/context.js';
import { decodeJsonRequest, decodeProtobufRequest, requestToEvents } from './decode.js';
import { ExportLogsServiceResponse, GRPC, RpcStatus } from './logs-proto.js';

/**
 * OTLP/HTTP logs: `POST /v1/logs` (also `/api/otlp/v1/logs`), protobuf or JSON, gzip, chunked.
 * Answers in the request's encoding: ExportLogsServiceResponse on success (records refused by
 * index rules are counted in partial_success), google.rpc.Status on error. A full writer queue is
 * 429 RESOURCE_EXHAUSTED with Retry-After, which the OTel exporters retry.
 */

const AUTH_SCHEMES = ['bearer', 'basic'] as const;
type Encoding = 'protobuf' | 'json';

function encodingOf(req: FastifyRequest): Encoding {
  const mt = mediaType(header(req.headers['content-type']));
  if (mt === 'application/x-protobuf' || mt === 'application/protobuf') return 'protobuf';
  if (mt === 'application/json') return 'json';
  throw new SvcError('unsupported_media_type', `unsupported content type "${mt}": want application/x-protobuf or application/json`);
}

const GRPC_BY_KIND: Record<string, number> = {
  bad_request: GRPC.INVALID_ARGUMENT,
  unauthenticated: GRPC.UNAUTHENTICATED,
  forbidden: GRPC.PERMISSION_DENIED,
  too_large: GRPC.INVALID_ARGUMENT,
  too_many_requests: GRPC.RESOURCE_EXHAUSTED,
  unavailable: GRPC.UNAVAILABLE,
};

function send(reply: FastifyReply, enc: Encoding, status: number, proto: Uint8Array, json: unknown): FastifyReply {
  if (enc === 'protobuf') return reply.code(status).type('application/x-protobuf').send(Buffer.from(proto));
  return reply.code(status).type('application/json').send(json);
}

function sendOtlpError(reply: FastifyReply, enc: Encoding, err: SvcError): FastifyReply {
  const status = STATUS_BY_KIND[err.kind];
  const code = GRPC_BY_KIND[err.kind] ?? GRPC.INTERNAL;
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer realm="svc"');
  if (err.retryAfterSecs !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(err.retryAfterSecs))));
  const msg = { code, message: err.message };
  return send(reply, enc, status, RpcStatus.encode(RpcStatus.create(msg)).finish(), msg);
}

async function exportLogs(ctx: IngestContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const enc = encodingOf(req);
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  const targets = await authorize(ctx, tok?.token);
  const body = await decompressBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  const parsed = enc === 'protobuf' ? decodeProtobufRequest(body) : decodeJsonRequest(body.toString('utf8'));
  const events: LogEvent[] = [];
  let rejected = 0;
  let reason = '';
  for (const { index, event } of requestToEvents(parsed, nowUs(ctx))) {
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
  await forward(ctx, events);
  const partial = rejected > 0 ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: reason } } : {};
  const proto = ExportLogsServiceResponse.encode(ExportLogsServiceResponse.create(partial)).finish();
  return send(reply, enc, 200, proto, rejected > 0 ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: reason } } : {});
}

export async function otlpRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  useRawBodies(app, ctx.maxBodyBytes);
  app.setErrorHandler((err, req, reply) => {
    const e = toSvcError(err);
    if (e.kind === 'internal') ctx.log?.error({ err }, 'otlp export failed');
    const enc = mediaType(header(req.headers['content-type'])).includes('json') ? 'json' : 'protobuf';
    return sendOtlpError(reply, enc, e);
  });
  const cfg = { config: { access: 'public' as const } };
  app.post('/v1/logs', cfg, (req, reply) => exportLogs(ctx, req, reply));
  app.post('/api/otlp/v1/logs', cfg, (req, reply) => exportLogs(ctx, req, reply));
}
