import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { extractToken } from '../../http-kit/ingest-token.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { decompressBody } from '../common/body.js';
import { authorize, forward, timeCtx, type IngestContext } from '../common/context.js';
import { decodeEventBody, decodeRawBody, type HecDecoded, type HecMeta } from './decode.js';
import { hecError } from './hec-error.js';
import { sendHecError, sendHecHealth, sendHecSuccess } from './respond.js';
import { AckChannels, CHANNEL_RE } from './acks.js';
import { z } from 'zod';
import { described, useZodSchemas } from '../../http-kit/schema/compiler.js';

/**
 * Splunk HTTP Event Collector: `/services/collector`, `/services/collector/event[/1.0]`,
 * `/services/collector/raw[/1.0]`, `POST /services/collector/ack[/1.0]` (indexer acknowledgement,
 * acks.ts), `GET /services/collector/health[/1.0]`. Token as
 * `Authorization: Splunk <token>` (Bearer and Basic password accepted too). Every answer is
 * `{"text", "code"}` (respond.ts); a full queue is "Server is busy" (code 9) with Retry-After.
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
    channel: channelOf(req),
  };
}

/** The request's channel (`X-Splunk-Request-Channel` or `?channel=`); a malformed one is Splunk's code 11. */
function channelOf(req: FastifyRequest): string | undefined {
  const c = header(req.headers['x-splunk-request-channel']) ?? ((req.query as Query).channel || undefined);
  if (c !== undefined && !CHANNEL_RE.test(c)) throw hecError('Invalid data channel', 11);
  return c;
}

async function ingest(
  ctx: IngestContext,
  acks: AckChannels,
  req: FastifyRequest,
  reply: FastifyReply,
  raw: boolean,
): Promise<FastifyReply> {
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  const targets = await authorize(ctx, tok?.token);
  ctx.precheck?.(targets.principal.pin.env, 0); // before the body is decoded: a refusal costs little
  const body = await decompressBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  const meta = metaOf(req);
  const decoded: HecDecoded[] = raw
    ? decodeRawBody(body, meta, timeCtx(ctx), ctx.limits)
    : decodeEventBody(body.toString('utf8'), meta, timeCtx(ctx), ctx.limits);
  const source = `http:${targets.principal.name}`;
  const events = decoded.map(({ index, event }) => {
    const t = targets.resolve(index);
    event.env = t.env;
    event.index = t.index;
    if (event.source === '') event.source = source;
    return event;
  });
  await forward(ctx, events, { env: targets.principal.pin.env, bytes: body.length });
  // acknowledged only now, after the WAL fsync: the id is true from the start (acks.ts)
  return sendHecSuccess(reply, meta.channel ? acks.issue(meta.channel) : undefined);
}

const ackBody = z.object({ acks: z.array(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)).max(10_000) });

/** `POST /services/collector/ack`: `{"acks":[ids]}` → `{"acks":{"<id>":true|false}}` for the request's channel. */
async function ackStatus(
  ctx: IngestContext,
  acks: AckChannels,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  await authorize(ctx, tok?.token);
  const channel = channelOf(req);
  if (!channel) throw hecError('Data channel is missing', 10);
  const body = await decompressBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw hecError('Invalid data format', 6, { reason: 'the body is not JSON' });
  }
  const r = ackBody.safeParse(parsed);
  if (!r.success)
    throw hecError('Invalid data format', 6, { reason: 'want {"acks": [ids]} with non-negative integer ids' });
  return reply.type('application/json').send({ acks: acks.status(channel, r.data.acks) });
}

function health(ctx: IngestContext, reply: FastifyReply): FastifyReply {
  const { queued, capacity } = ctx.writer.queueDepth();
  return sendHecHealth(reply, queued >= capacity);
}

const optional = (what: string) => z.string().optional().describe(what);
const hecQuery = described(
  z.object({
    host: optional('host of events that have none'),
    source: optional('source of events that have none'),
    sourcetype: optional('sourcetype of events that have none'),
    index: optional('index of events that have none'),
    channel: optional('the data channel, when X-Splunk-Request-Channel is not sent'),
  }),
);
const hecHeaders = described(
  z.object({
    'x-splunk-request-channel': optional('the data channel (a UUID): needed for indexer acknowledgement'),
    'content-encoding': optional('gzip, deflate, br or none'),
  }),
);
const hecDoc = {
  tags: ['ingest: Splunk HEC'],
  protocol: { name: 'Splunk HEC', auth: ['ingestSplunk', 'ingestToken', 'ingestBasic'] },
  headers: hecHeaders,
};

export async function splunkHecRoutes(app: FastifyInstance, opts: { ctx: IngestContext }): Promise<void> {
  const { ctx } = opts;
  protocolEdge(
    app,
    { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'hec request', refused: ctx.meter?.refused },
    sendHecError,
  );
  // the route schemas are zod (http-kit/schema/compiler.ts): set here too, so the plugin stands alone
  useZodSchemas(app);
  const config = { access: 'public' as const };
  const acks = new AckChannels();
  const push = { ...hecDoc, querystring: hecQuery, errors: [429, 503] };
  const event = { config, schema: { ...push, summary: 'HEC events (JSON objects)', consumes: ['application/json'] } };
  for (const p of ['/services/collector', '/services/collector/event', '/services/collector/event/1.0']) {
    app.post(p, event, (req, reply) => ingest(ctx, acks, req, reply, false));
  }
  const raw = { config, schema: { ...push, summary: 'HEC raw: one event a line', consumes: ['text/plain'] } };
  for (const p of ['/services/collector/raw', '/services/collector/raw/1.0']) {
    app.post(p, raw, (req, reply) => ingest(ctx, acks, req, reply, true));
  }
  const ack = {
    config,
    schema: {
      ...hecDoc,
      summary: 'indexer acknowledgement: which ids of the channel are stored',
      querystring: described(z.object({ channel: hecQuery.shape.channel })),
      body: described(ackBody),
    },
  };
  for (const p of ['/services/collector/ack', '/services/collector/ack/1.0']) {
    app.post(p, ack, (req, reply) => ackStatus(ctx, acks, req, reply));
  }
  const healthDoc = { config, schema: { tags: hecDoc.tags, protocol: { name: 'Splunk HEC' }, summary: 'HEC health' } };
  for (const p of ['/services/collector/health', '/services/collector/health/1.0']) {
    app.get(p, healthDoc, async (_req, reply) => health(ctx, reply));
  }
}
