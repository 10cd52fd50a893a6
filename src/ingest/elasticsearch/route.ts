import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isSvcError } from '../../errors/svc-error.js';
import { described, useZodSchemas } from '../../http-kit/schema/compiler.js';
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
  // the body may be handed to a decode worker below (and so emptied here): its size is taken now
  const from = { env: targets.principal.pin.env, bytes: body.length };
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
  // large bodies decode on a worker thread (common/decode-pool.ts), small ones right here; a bulk
  // waits for a busy worker instead of a whole-request 429, which the shippers' helpers do not retry
  const { items, itemOf, batch } = await decodeJob(ctx.decoder, ES_BULK_DECODE, job, { wait: true });
  ctx.meter?.rejected(items.length - itemOf.length);
  let retryAfterSecs: number | undefined;
  try {
    await forward(ctx, batch, from);
  } catch (e) {
    if (!isSvcError(e) || (e.code !== 'queue_full' && e.code !== 'rate_limited')) throw e;
    // answered inside a successful bulk, so the edge never sees it: counted here
    ctx.meter?.refused(e);
    // backpressure (a full queue, the env over its ingest limit): every accepted item fails
    // retryably (too_many_requests) inside a successful answer
    for (const i of itemOf) items[i] = { ...items[i], error: itemError(e) };
    retryAfterSecs = e.retryAfterSecs ?? 1;
  }
  const filter = parseFilterPath((req.query as Record<string, string | undefined>).filter_path);
  return sendBulk(reply, items, Date.now() - started, filter, retryAfterSecs);
}

const PROTOCOL = { name: 'Elasticsearch' };
const bulkDoc = {
  tags: ['ingest: Elasticsearch'],
  protocol: { ...PROTOCOL, auth: ['ingestApiKey', 'ingestBasic', 'ingestToken'] },
  querystring: described(
    z.object({
      filter_path: z.string().optional().describe('which parts of the answer to keep, as Elasticsearch does'),
    }),
  ),
  headers: described(z.object({ 'content-encoding': z.string().optional().describe('gzip, deflate, br or none') })),
  consumes: ['application/x-ndjson', 'application/json'],
  errors: [429, 503],
};
const probeDoc = { tags: ['ingest: Elasticsearch'], protocol: PROTOCOL };

/** Setup probes of Filebeat, Logstash, Vector, Fluent Bit: answered so they start, nothing stored. */
function setupRoutes(app: FastifyInstance, p: string): void {
  const config = { access: 'public' as const };
  const schema = { ...probeDoc, summary: 'a setup probe of a shipper: answered so it starts, nothing stored' };
  const ack = async () => ({ acknowledged: true });
  const get = (url: string, body: unknown) => app.get(url, { config, schema }, async () => body);
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
    schema: {
      ...schema,
      querystring: described(
        z.object({ format: z.enum(['json']).optional().describe('json: a JSON answer, else text') }),
      ),
      produces: ['text/plain', 'application/json'],
    },
    handler: async (req, reply) => catHealth(req.query, reply),
  });
  for (const kind of ['_index_template', '_template', '_component_template', '_ilm/policy', '_ingest/pipeline']) {
    app.route({ method: ['GET', 'HEAD'], url: `${p}/${kind}/:name`, config, schema, handler: async () => ({}) });
    app.route({ method: ['PUT', 'POST'], url: `${p}/${kind}/:name`, config, schema, handler: ack });
  }
  app.route({ method: ['PUT', 'POST'], url: `${p}/_data_stream/:name`, config, schema, handler: ack });
  app.route({ method: ['GET', 'HEAD'], url: `${p}/:index/_mapping`, config, schema, handler: async () => ({}) });
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
  protocolEdge(
    app,
    { maxBodyBytes: ctx.maxBodyBytes, log: ctx.log, what: 'elasticsearch request', refused: ctx.meter?.refused },
    sendEsError,
  );
  // the route schemas are zod (http-kit/schema/compiler.ts): set here too, so the plugin stands alone
  useZodSchemas(app);
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Elastic-Product', 'Elasticsearch');
    return payload;
  });
  const config = { access: 'public' as const };
  const info = { config, schema: { ...probeDoc, summary: 'cluster info, as Elasticsearch answers it' } };
  const bulkAll = { config, schema: { ...bulkDoc, summary: 'bulk index: index actions and their documents' } };
  const bulkIndex = { config, schema: { ...bulkDoc, summary: 'bulk index into an index named in the path' } };
  for (const p of ['', '/api/es']) {
    if (p !== '' || opts.root !== false)
      app.route({ method: ['GET', 'HEAD'], url: `${p}/`, ...info, handler: async () => clusterInfo() });
    if (p !== '') app.route({ method: ['GET', 'HEAD'], url: p, ...info, handler: async () => clusterInfo() });
    app.post(`${p}/_bulk`, bulkAll, (req, reply) => bulk(ctx, req, reply));
    app.put(`${p}/_bulk`, bulkAll, (req, reply) => bulk(ctx, req, reply));
    app.post<{ Params: { index: string } }>(`${p}/:index/_bulk`, bulkIndex, (req, reply) =>
      bulk(ctx, req, reply, req.params.index),
    );
    app.put<{ Params: { index: string } }>(`${p}/:index/_bulk`, bulkIndex, (req, reply) =>
      bulk(ctx, req, reply, req.params.index),
    );
    app.register(async (sub) => setupRoutes(sub, p));
  }
}
