import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, isSvcError } from '../../errors/svc-error.js';
import { toSvcError } from '../../http/errors.js';
import { decodeBody } from '../common/body.js';
import { authorize, forward, timeCtx, type IngestContext } from '../common/context.js';
import { bodyOf, header, useRawBodies } from '../common/raw-body.js';
import { extractToken } from '../common/token.js';
import { decodeEventBody, decodeRawBody, type HecDecoded, type HecMeta } from './decode.js';
import { HEC_HEALTHY, HEC_SUCCESS, HEC_UNHEALTHY_QUEUE, HecError, hecAnswerOf, sendHec } from './respond.js';

/**
 * Splunk HTTP Event Collector: `/services/collector`, `/services/collector/event[/1.0]`,
 * `/services/collector/raw[/1.0]`, `GET /services/collector/health[/1.0]`. Token as
 * `Authorization: Splunk <token>` (Bearer and Basic password accepted too). Every answer is
 * `{"text", "code"}`; a full queue is 429 "Server is busy" (code 9) with Retry-After.
 */

type Query = Record<string, string | undefined>;
const AUTH_SCHEMES = ['splunk', 'bearer', 'basic'] as const;

function metaOf(req: FastifyRequest): HecMeta {
  const q = req.query as Query;
  return {
    host: q.host || undefined,
    source: q.source || undefined,
    sourcetype: q.sourcetype || undefined,
    index: q.index || undefined,
    channel: header(req.headers['x-splunk-request-channel']) ?? (q.channel || undefined),
  };
}

async function ingest(ctx: IngestContext, req: FastifyRequest, reply: FastifyReply, raw: boolean): Promise<FastifyReply> {
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  const targets = await authorize(ctx, tok?.token);
  const body = decodeBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  const meta = metaOf(req);
  const text = body.toString('utf8');
  const decoded: HecDecoded[] = raw ? decodeRawBody(text, meta, timeCtx(ctx)) : decodeEventBody(text, meta, timeCtx(ctx));
  const source = `http:${targets.principal.name}`;
  const events = decoded.map(({ index, event }) => {
    const t = targets.resolve(index);
    event.env = t.env;
    event.index = t.index;
    if (event.source === '') event.source = source;
    return event;
  });
  await forward(ctx, events);
  return sendHec(reply, HEC_SUCCESS);
}

function health(ctx: IngestContext, reply: FastifyReply): FastifyReply {
  const { queued, capacity } = ctx.writer.queueDepth();
  return sendHec(reply, queued >= capacity ? HEC_UNHEALTHY_QUEUE : HEC_HEALTHY);
}

export async function splunkHecRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  useRawBodies(app, ctx.maxBodyBytes);
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof HecError) return sendHec(reply, err.answer);
    const svcErr = toSvcError(err);
    if (svcErr.kind === 'internal') ctx.log?.error({ err }, 'hec request failed');
    return sendHec(reply, hecAnswerOf(svcErr), svcErr.retryAfterSecs);
  });
  const cfg = { config: { access: 'public' as const } };
  for (const p of ['/services/collector', '/services/collector/event', '/services/collector/event/1.0']) {
    app.post(p, cfg, (req, reply) => ingest(ctx, req, reply, false));
  }
  for (const p of ['/services/collector/raw', '/services/collector/raw/1.0']) {
    app.post(p, cfg, (req, reply) => ingest(ctx, req, reply, true));
  }
  for (const p of ['/services/collector/health', '/services/collector/health/1.0']) {
    app.get(p, cfg, async (_req, reply) => health(ctx, reply));
  }
}

