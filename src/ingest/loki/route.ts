import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../errors/svc-error.js';
import { extractToken } from '../../http-kit/ingest-token.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { decompressBody, mediaType } from '../common/body.js';
import { authorize, forward, timeCtx, type IngestContext } from '../common/context.js';
import { decodeJson, decodeProtobuf, streamsToEvents, type LokiStream } from './decode.js';
import { sendLokiError, sendPushed } from './respond.js';
import { described, useZodSchemas } from '../../http-kit/schema/compiler.js';
import { z } from 'zod';

/**
 * Loki push: `POST /loki/api/v1/push` (also `/api/loki/v1/push`). Snappy protobuf (promtail, Alloy,
 * winston-loki; no Content-Encoding) or JSON (gzip allowed). Answers as Loki does (respond.ts),
 * asking to retry later when the writer queue is full.
 */

const AUTH_SCHEMES = ['bearer', 'basic'] as const;

function isProtobuf(req: FastifyRequest, body: Buffer): boolean {
  const mt = mediaType(header(req.headers['content-type']));
  if (mt === 'application/x-protobuf' || mt === 'application/protobuf') return true;
  if (mt === 'application/json') return false;
  // no usable content type: JSON starts with "{" (after whitespace), snappy protobuf never does
  const first = body.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  return first !== 0x7b;
}

/** The push's streams; `size.bytes` gets the decompressed body size (what the env's bytes/s limit counts). */
async function decode(ctx: IngestContext, req: FastifyRequest, size: { bytes: number }): Promise<LokiStream[]> {
  const raw = bodyOf(req.body);
  const enc = header(req.headers['content-encoding'])?.toLowerCase();
  if (enc === 'snappy') return decodeProtobuf(raw, ctx.maxBodyBytes, size);
  const body = await decompressBody(raw, enc, ctx.maxBodyBytes);
  if (body.length === 0) throw new SvcError('invalid_input', 'empty push request');
  size.bytes = body.length;
  return isProtobuf(req, body) ? decodeProtobuf(body, ctx.maxBodyBytes, size) : decodeJson(body.toString('utf8'));
}

async function push(ctx: IngestContext, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  const targets = await authorize(ctx, tok?.token);
  ctx.precheck?.(targets.principal.pin.env, 0); // before the body is decoded: a refusal costs little
  const size = { bytes: 0 };
  const { decoded, refusals, refused } = streamsToEvents(await decode(ctx, req, size), timeCtx(ctx), ctx.limits);
  ctx.meter?.rejected(refused);
  const events = decoded.map(({ index, event }) => {
    const t = targets.resolve(index);
    event.env = t.env;
    event.index = t.index;
    return event;
  });
  await forward(ctx, events, { env: targets.principal.pin.env, bytes: size.bytes });
  // as Loki: the valid entries are stored, and the push is answered 400 naming the refused ones
  if (refused > 0)
    throw new SvcError(
      'invalid_input',
      `${refused} of ${refused + events.length} entries refused (the others were stored): ${refusals.join('; ')}`,
    );
  return sendPushed(reply);
}

export async function lokiRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  protocolEdge(
    app,
    { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'loki push', refused: ctx.meter?.refused },
    sendLokiError,
  );
  // the route schemas are zod (http-kit/schema/compiler.ts): set here too, so the plugin stands alone
  useZodSchemas(app);
  const config = { access: 'public' as const };
  const tags = ['ingest: Loki'];
  const schema = {
    summary: 'Loki push: snappy protobuf or JSON streams',
    tags,
    protocol: { name: 'Loki', auth: ['ingestToken', 'ingestBasic'] },
    headers: described(
      z.object({ 'content-encoding': z.string().optional().describe('snappy (protobuf), gzip, deflate, br or none') }),
    ),
    consumes: ['application/x-protobuf', 'application/json'],
    success: 204,
    errors: [429, 503],
  };
  app.post('/loki/api/v1/push', { config, schema }, (req, reply) => push(ctx, req, reply));
  app.post('/api/loki/v1/push', { config, schema }, (req, reply) => push(ctx, req, reply));
  const ready = {
    summary: 'ready, for shippers that probe it',
    tags,
    protocol: { name: 'Loki' },
    produces: ['text/plain'],
  };
  app.get('/loki/ready', { config, schema: ready }, async (_req, reply) => reply.type('text/plain').send('ready\n'));
}
