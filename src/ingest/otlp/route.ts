import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../errors/svc-error.js';
import { described, useZodSchemas } from '../../http-kit/schema/compiler.js';
import { extractToken } from '../../http-kit/ingest-token.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { decompressBody, mediaType } from '../common/body.js';
import { authorize, type IngestContext } from '../common/context.js';
import { exportOtlp } from './export.js';
import { sendExported, sendOtlpError, type OtlpEncoding } from './respond.js';

/**
 * OTLP/HTTP logs: `POST /v1/logs` (also `/api/otlp/v1/logs`), protobuf or JSON, gzip, chunked.
 * Answers in the request's encoding (respond.ts); records refused by index rules are counted as a
 * partial success, a full writer queue asks the exporter to retry.
 */

const AUTH_SCHEMES = ['bearer', 'basic'] as const;

function encodingOf(req: FastifyRequest): OtlpEncoding {
  const mt = mediaType(header(req.headers['content-type']));
  if (mt === 'application/x-protobuf' || mt === 'application/protobuf') return 'protobuf';
  if (mt === 'application/json') return 'json';
  throw new SvcError(
    'unsupported_media_type',
    `unsupported content type "${mt}": want application/x-protobuf or application/json`,
  );
}

async function exportLogs(ctx: IngestContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const enc = encodingOf(req);
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  const { principal } = await authorize(ctx, tok?.token);
  ctx.precheck?.(principal.pin.env, 0); // before the body is decoded: a refusal costs little
  const body = await decompressBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  const { rejected, reason } = await exportOtlp(ctx, principal, body, enc);
  return sendExported(reply, enc, rejected, reason);
}

export async function otlpRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  protocolEdge(
    app,
    { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'otlp export', refused: ctx.meter?.refused },
    (reply, e, req) =>
      sendOtlpError(reply, mediaType(header(req.headers['content-type'])).includes('json') ? 'json' : 'protobuf', e),
  );
  // the route schemas are zod (http-kit/schema/compiler.ts): set here too, so the plugin stands alone
  useZodSchemas(app);
  const types = ['application/x-protobuf', 'application/json'];
  const schema = {
    summary: 'OTLP/HTTP logs export (ExportLogsServiceRequest)',
    tags: ['ingest: OTLP'],
    protocol: { name: 'OTLP', auth: ['ingestToken', 'ingestBasic'] },
    headers: described(z.object({ 'content-encoding': z.string().optional().describe('gzip, deflate, br or none') })),
    consumes: types,
    produces: types,
    errors: [429, 503],
  };
  const cfg = { config: { access: 'public' as const }, schema };
  app.post('/v1/logs', cfg, (req, reply) => exportLogs(ctx, req, reply));
  app.post('/api/otlp/v1/logs', cfg, (req, reply) => exportLogs(ctx, req, reply));
}
