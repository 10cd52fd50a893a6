import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Detail } from '../selflog/types.js';
import { toSvcError } from '../http-kit/errors.js';

/**
 * The audit trail (docs/audit.md): one `event=audit` record in `_system/_svclogs` per search,
 * export, agent question, MCP tool call and change (every POST/PUT/PATCH/DELETE of a signed-in
 * caller), written here, in one hook over every route, from what the route declares in
 * `config.audit`. Never a secret: of the request only the parameters named in QUERY_FIELDS are
 * kept (the query, env, index, range, names), of a changing body only its field names, never its
 * values; the self-log's redaction (selflog/redact.ts) runs over the record too.
 */
export interface AuditSpec {
  /** What the request does: `search`, `export`, `agent.ask`…; default: from the method and the route. */
  action?: string;
  /**
   * What to record beyond the defaults, from the request (MCP reads its JSON-RPC body); null: this
   * request is not audited (an MCP `initialize`). Only names and queries: never a secret.
   */
  describe?: (request: FastifyRequest) => Detail | null;
}

/** Request parameters the record keeps, from the JSON body or else the query string. None is a secret. */
const QUERY_FIELDS = ['q', 'query', 'env', 'index', 'from', 'to', 'question', 'eventId', 'name', 'username'];
/** `env` and `index` name the record's own place (`_system`/`_svclogs`): the request's go beside them. */
const RENAMED: Record<string, string> = { q: 'query', env: 'env_name', index: 'index_name' };
const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Routes a caller signs in for and that change something are audited unless they say `audit: false`. */
function specOf(request: FastifyRequest): AuditSpec | undefined {
  const cfg = request.routeOptions.config;
  if (cfg?.audit === false || request.is404) return undefined;
  if (cfg?.audit) return cfg.audit;
  const access = cfg?.access ?? 'authenticated';
  return CHANGES.has(request.method) && access !== 'public' && access !== 'ingest' ? {} : undefined;
}

/**
 * `POST /api/admin/envs` → `admin.envs.create` (a POST to a list that is also read: a create),
 * `PATCH …/:name` → `admin.envs.update`, `DELETE` → `….delete`; any other POST is named by its
 * path: `POST /api/monitors/:id/run` → `monitors.run`, `POST /api/admin/gc` → `admin.gc`.
 */
export function actionOf(method: string, url: string, isList: boolean): string {
  const nouns = url.split('/').filter((s) => s !== '' && s !== 'api' && !s.startsWith(':'));
  const verb = { PUT: 'update', PATCH: 'update', DELETE: 'delete' }[method] ?? (isList ? 'create' : undefined);
  return verb ? [...nouns, verb].join('.') : nouns.join('.');
}

/** Registers the audit hook; after the auth hook, so the caller is known (refused callers are recorded there). */
export function registerAuditTrail(app: FastifyInstance): void {
  app.decorateRequest('auditRows', undefined);
  app.decorateRequest('auditError', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const spec = specOf(request);
    if (!spec || !request.principal || request.principal.kind === 'ingest_token') return;
    const started = performance.now();
    // 'close' also comes for answers a route wrote itself (export, agent, MCP hijack the reply)
    reply.raw.once('close', () => record(request, reply, spec, performance.now() - started));
  });
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (request.auditRows === undefined) request.auditRows = rowsOf(payload);
    return payload;
  });
  app.addHook('onError', async (request, _reply, err) => {
    request.auditError = toSvcError(err).code;
  });
}

function record(request: FastifyRequest, reply: FastifyReply, spec: AuditSpec, ms: number): void {
  try {
    const extra = spec.describe ? spec.describe(request) : {};
    if (extra === null) return;
    const p = request.principal!;
    const route = request.routeOptions.url ?? request.url.split('?')[0];
    const detail: Detail = {
      action:
        spec.action ??
        actionOf(
          request.method,
          route,
          request.method === 'POST' && request.server.hasRoute({ method: 'GET', url: route }),
        ),
      ...(p.kind === 'user' ? { user: p.name, user_id: p.id } : { key_name: p.name, key_id: p.id }),
      principal_kind: p.kind,
      client_ip: request.ip,
      method: request.method,
      route,
      target: paramsOf(request),
      ...queryOf(request),
      // a declared route names what it keeps; a change by default keeps its body's field names
      fields: CHANGES.has(request.method) && !spec.action && !spec.describe ? bodyFields(request.body) : undefined,
      ...extra,
      rows: request.auditRows,
      status: reply.raw.headersSent || reply.sent ? reply.raw.statusCode : reply.raw.destroyed ? 499 : reply.statusCode,
      error: request.auditError,
      duration_ms: Math.round(ms),
    };
    request.server.deps.selflog.service('audit', detail as Detail & { action: string });
  } catch (err) {
    // the record is a by-product: a mistake in it must never touch the answer, already sent
    request.log.error({ err }, 'cannot write the audit record');
  }
}

/** The route's path parameters (ids and names) as `name=value` pairs. */
function paramsOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, unknown> | undefined;
  if (!params || typeof params !== 'object') return undefined;
  const pairs = Object.entries(params).map(([k, v]) => `${k}=${String(v)}`);
  return pairs.length > 0 ? pairs.join(' ') : undefined;
}

function queryOf(request: FastifyRequest): Detail {
  const out: Detail = {};
  for (const source of [request.query, request.body]) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const k of QUERY_FIELDS) {
      const v = (source as Record<string, unknown>)[k];
      if (typeof v === 'string' || typeof v === 'number') out[RENAMED[k] ?? k] = v;
    }
  }
  return out;
}

/** The names of the fields a change sent (`retentionDays,ingestEventsPerSec`), never their values. */
function bodyFields(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) return undefined;
  const keys = Object.keys(body);
  return keys.length > 0 ? keys.join(',') : undefined;
}

/** Rows a JSON answer holds: a table's rows, events, histogram buckets, fields, or a list. */
function rowsOf(payload: unknown): number | undefined {
  if (Array.isArray(payload)) return payload.length;
  if (!payload || typeof payload !== 'object') return undefined;
  const o = payload as Record<string, unknown>;
  for (const k of ['rows', 'events', 'buckets', 'fields', 'results']) if (Array.isArray(o[k])) return o[k].length;
  return undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Rows the answer held, for the audit record: set by a route that streams (export), else read from the payload. */
    auditRows?: number;
    /** The error code answered, for the audit record. */
    auditError?: string;
  }
  interface FastifyContextConfig {
    /** How the audit trail records this route (http/audit.ts); false: not at all. */
    audit?: AuditSpec | false;
  }
}
