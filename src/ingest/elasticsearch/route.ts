import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSvcError } from '../../errors/svc-error.js';
import { extractToken } from '../../http-kit/ingest-token.js';
import { bodyOf, header, protocolEdge } from '../../http-kit/raw-body.js';
import { decompressBody } from '../common/body.js';
import { authorize, forward, type IngestContext, type TargetResolver } from '../common/context.js';
import { decodeJob } from '../common/decode-pool.js';
import { itemError } from './bulk-item.js';
import { ES_BULK_DECODE } from './decode-bulk.js';
import { clusterInfo, parseFilterPath, sendBulk, sendEsError } from './respond.js';

/**
 * Elasticsearch compatibility: `GET|HEAD /`, `POST /_bulk`, `POST /{index}/_bulk` (also under
 * /api/es/) and the setup probes shippers make before their first bulk. Every answer carries
 * `X-Elastic-Product: Elasticsearch` (the official clients refuse 2xx answers without it).
 *
 * Backpressure: when the writer queue is full every accepted item fails with queue_full inside a
 * successful bulk answer (respond.ts sendBulk says how, and why).
 */

const AUTH_SCHEMES = ['apikey', 'basic', 'bearer'] as const;

async function authorizeEs(ctx: IngestContext, req: FastifyRequest): Promise<TargetResolver> {
  const tok = extractToken(header(req.headers.authorization), AUTH_SCHEMES);
  return authorize(ctx, tok?.token);
}

async function bulk(
  ctx: IngestContext,
  req: FastifyRequest,
  reply: FastifyReply,
  pathIndex?: string,
): Promise<unknown> {
  const started = Date.now();
  const targets = await authorizeEs(ctx, req);
  const body = await decompressBody(bodyOf(req.body), header(req.headers['content-encoding']), ctx.maxBodyBytes);
  const principal = targets.principal;
  const job = {
    body,
    pathIndex,
    principal,
    envs: ctx.envExists(principal.pin.env) ? [principal.pin.env] : [],
    nowMs: ctx.clock.now(),
    timezone: ctx.timezone,
    limits: ctx.limits,
  };
  // large bodies decode on a worker thread (common/decode-pool.ts), small ones right here
  const { items, itemOf, batch } = await decodeJob(ctx.decoder, ES_BULK_DECODE, job);
  let retryAfterSecs: number | undefined;
  try {
    await forward(ctx, batch);
  } catch (e) {
    if (!isSvcError(e) || e.code !== 'queue_full') throw e;
    // backpressure: every accepted item fails retryably (too_many_requests) inside a successful answer
    for (const i of itemOf) items[i] = { ...items[i], error: itemError(e) };
    retryAfterSecs = e.retryAfterSecs ?? 1;
  }
  const filter = parseFilterPath((req.query as Record<string, string | undefined>).filter_path);
  return sendBulk(reply, items, Date.now() - started, filter, retryAfterSecs);
}

/** Setup probes of Filebeat, Logstash, Vector, Fluent Bit: answered so they start, nothing stored. */
function setupRoutes(app: FastifyInstance, p: string): void {
  const config = { access: 'public' as const };
  const ack = async () => ({ acknowledged: true });
  const get = (url: string, body: unknown) => app.get(url, { config }, async () => body);
  get(`${p}/_license`, {
    license: { status: 'active', uid: 'svc', type: 'basic', issue_date_in_millis: 0, max_nodes: 1000 },
  });
  get(`${p}/_xpack`, { build: {}, license: { status: 'active', type: 'basic', mode: 'basic' }, features: {} });
  get(`${p}/_cluster/health`, {
    cluster_name: 'svc',
    status: 'green',
    timed_out: false,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
  });
  get(`${p}/_nodes`, { _nodes: { total: 1, successful: 1, failed: 0 }, cluster_name: 'svc', nodes: {} });
  // rsyslog's omelasticsearch probes it on every resume; a _cat API answers text unless ?format=json
  app.route({
    method: ['GET', 'HEAD'],
    url: `${p}/_cat/health`,
    config,
    handler: async (req, reply) => catHealth(req.query, reply),
  });
  for (const kind of ['_index_template', '_template', '_component_template', '_ilm/policy', '_ingest/pipeline']) {
    app.route({ method: ['GET', 'HEAD'], url: `${p}/${kind}/:name`, config, handler: async () => ({}) });
    app.route({ method: ['PUT', 'POST'], url: `${p}/${kind}/:name`, config, handler: ack });
  }
  app.route({ method: ['PUT', 'POST'], url: `${p}/_data_stream/:name`, config, handler: ack });
  app.route({ method: ['GET', 'HEAD'], url: `${p}/:index/_mapping`, config, handler: async () => ({}) });
}

/** `GET /_cat/health` as Elasticsearch answers it for a one-node green cluster: a text row, or JSON with ?format=json. */
function catHealth(query: unknown, reply: FastifyReply): FastifyReply {
  const now = new Date();
  const row = {
    epoch: String(Math.floor(now.getTime() / 1000)),
    timestamp: now.toISOString().slice(11, 19),
    cluster: 'svc',
    status: 'green',
    'node.total': '1',
    'node.data': '1',
    shards: '0',
    pri: '0',
    relo: '0',
    init: '0',
    unassign: '0',
    pending_tasks: '0',
    max_task_wait_time: '-',
    active_shards_percent: '100.0%',
  };
  if ((query as Record<string, unknown>)?.format === 'json') return reply.send([row]);
  return reply.type('text/plain; charset=UTF-8').send(`${Object.values(row).join(' ')}\n`);
}

/**
 * `root: false` leaves `GET|HEAD /` to someone else (the web UI): shippers then use the base URL
 * `<svc>/api/es`. When both want `/`, answer clusterInfo() to requests that do not accept text/html.
 */
export async function elasticsearchRoutes(
  app: FastifyInstance,
  opts: { ctx: IngestContext; root?: boolean },
): Promise<void> {
  const { ctx } = opts;
  protocolEdge(app, { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'elasticsearch request' }, sendEsError);
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Elastic-Product', 'Elasticsearch');
    return payload;
  });
  const cfg = { config: { access: 'public' as const } };
  for (const p of ['', '/api/es']) {
    if (p !== '' || opts.root !== false)
      app.route({ method: ['GET', 'HEAD'], url: `${p}/`, ...cfg, handler: async () => clusterInfo() });
    if (p !== '') app.route({ method: ['GET', 'HEAD'], url: p, ...cfg, handler: async () => clusterInfo() });
    app.post(`${p}/_bulk`, cfg, (req, reply) => bulk(ctx, req, reply));
    app.put(`${p}/_bulk`, cfg, (req, reply) => bulk(ctx, req, reply));
    app.post<{ Params: { index: string } }>(`${p}/:index/_bulk`, cfg, (req, reply) =>
      bulk(ctx, req, reply, req.params.index),
    );
    app.put<{ Params: { index: string } }>(`${p}/:index/_bulk`, cfg, (req, reply) =>
      bulk(ctx, req, reply, req.params.index),
    );
    app.register(async (sub) => setupRoutes(sub, p));
  }
}
