import http from 'node:http';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ZodOptional, type z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { ERROR_CODES } from '../../errors/codes.js';
import { VERSION } from '../../version.js';
import type { Access } from '../../http-kit/access.js';
import { STATUS_BY_KIND } from '../../http-kit/errors.js';
import { isDescribedOnly } from '../../http-kit/schema/compiler.js';
import { ACCESS_TEXT, SECURITY_SCHEMES, securityOf } from './security.js';

type Json = Record<string, unknown>;

/** A route as Fastify registered it: what the document is made from. */
export interface RegisteredRoute {
  methods: string[];
  url: string;
  access: Access;
  schema: FastifySchema;
}

/**
 * Records every route as it is registered (an onRoute hook on the root, so routes of every plugin).
 * The HEAD route Fastify adds beside each GET by itself is left out: it answers as the GET does,
 * without a body. A HEAD a route declares itself (the Elasticsearch probes) is kept.
 */
export function recordRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r: RouteOptions) => {
    if (r.method === 'HEAD') return;
    const methods = (Array.isArray(r.method) ? r.method : [r.method]).map((m) => m.toUpperCase());
    routes.push({ methods, url: r.url, access: r.config?.access ?? 'authenticated', schema: r.schema ?? {} });
  });
  return routes;
}

/** A Fastify URL as an OpenAPI path: `/api/admin/envs/:name` → `/api/admin/envs/{name}`, `/ui/*` → `/ui/{path}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');
}

/** The OpenAPI 3.1 document of the routes: parameters and bodies from their zod schemas, auth from their access class. */
export function openApiDocument(routes: RegisteredRoute[]): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const path = openApiPath(r.url);
    const item = (paths[path] ??= {});
    for (const m of r.methods) item[m.toLowerCase()] = operation(r, path);
  }
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((p) => [p, paths[p]]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc',
      version: VERSION,
      description:
        'The HTTP API of svc, generated from the schemas every route declares (src/http/schema/). ' +
        "Errors are svc's JSON error body unless a route says it answers in a compatibility protocol's own shape. " +
        'Every GET route also answers HEAD.',
    },
    paths: sorted,
    components: { securitySchemes: SECURITY_SCHEMES, schemas: { Error: ERROR_SCHEMA } },
  };
}

function operation(r: RegisteredRoute, path: string): Json {
  const s = r.schema;
  const op: Json = {};
  if (s.summary) op.summary = s.summary;
  if (s.tags) op.tags = s.tags;
  op.description = !s.protocol
    ? `Access: ${ACCESS_TEXT[r.access]}.`
    : s.protocol.auth
      ? `Access: an ingest token, read by the route itself; errors in ${s.protocol.name}'s own shape.`
      : `Access: anyone (a ${s.protocol.name} client's probe); errors in ${s.protocol.name}'s own shape.`;
  op['x-svc-access'] = r.access;
  op.security = securityOf(r.access, s.protocol?.auth);
  const parameters = [
    ...pathParameters(path, s.params),
    ...namedParameters('query', s.querystring),
    ...headerParameters(s),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  const body = requestBody(s);
  if (body) op.requestBody = body;
  op.responses = responses(r, path);
  return op;
}

/** JSON Schema of a zod schema as it is written in a request (the input side of transforms and pipes). */
export function jsonSchema(schema: z.ZodType): Json {
  const out = zodToJsonSchema(schema, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
    effectStrategy: 'input',
    pipeStrategy: 'input',
  }) as Json;
  delete out.$schema;
  return out;
}

function properties(schema: unknown): { props: Record<string, Json>; required: Set<string> } {
  if (!schema) return { props: {}, required: new Set() };
  const js = jsonSchema(schema as z.ZodType);
  return { props: (js.properties ?? {}) as Record<string, Json>, required: new Set((js.required ?? []) as string[]) };
}

function parameter(name: string, where: string, schema: Json, required: boolean): Json {
  const { description, ...rest } = schema;
  return { name, in: where, required, ...(description ? { description } : {}), schema: rest };
}

function namedParameters(where: 'query' | 'header', schema: unknown): Json[] {
  const { props, required } = properties(schema);
  return Object.entries(props).map(([name, p]) => parameter(name, where, p, required.has(name)));
}

/** Path parameters from the URL (every one is required), typed by the params schema when the route has one. */
function pathParameters(path: string, schema: unknown): Json[] {
  const { props } = properties(schema);
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) =>
    parameter(name, 'path', props[name] ?? { type: 'string' }, true),
  );
}

/** OpenAPI ignores header parameters named Content-Type, Accept or Authorization: the body's content types and security say those. */
const IMPLIED_HEADERS = new Set(['content-type', 'accept', 'authorization']);

function headerParameters(s: FastifySchema): Json[] {
  return namedParameters('header', s.headers).filter((p) => !IMPLIED_HEADERS.has(String(p.name)));
}

function requestBody(s: FastifySchema): Json | undefined {
  if (s.body) {
    const schema = s.body as z.ZodType;
    // an optional body is said by `required`, not by the schema (which would read "nothing, or …")
    const content = { schema: jsonSchema(schema instanceof ZodOptional ? (schema.unwrap() as z.ZodType) : schema) };
    const types = s.consumes ?? ['application/json'];
    return { required: !schema.isOptional(), content: Object.fromEntries(types.map((t) => [t, content])) };
  }
  if (s.consumes)
    return {
      required: true,
      description: 'the raw body, decoded by the route',
      content: Object.fromEntries(s.consumes.map((t) => [t, {}])),
    };
  return undefined;
}

/** Which error codes each status carries, from the one catalog (errors/codes.ts → http-kit/errors.ts). */
function codesOf(status: number): string[] {
  return Object.entries(ERROR_CODES)
    .filter(([, kind]) => STATUS_BY_KIND[kind] === status)
    .map(([code]) => code);
}

function responses(r: RegisteredRoute, path: string): Json {
  const s = r.schema;
  const out: Json = { [String(s.success ?? 200)]: success(s) };
  const validated = [s.querystring, s.params, s.headers, s.body].some(
    (x) => x !== undefined && !isDescribedOnly(x as z.ZodType),
  );
  const statuses = new Set<number>(s.errors ?? []);
  if (validated || s.consumes || s.body) statuses.add(400);
  if (r.access !== 'public' || s.protocol?.auth) statuses.add(401).add(403);
  if (path.includes('{')) statuses.add(404);
  if (s.consumes || s.body) statuses.add(413);
  for (const st of [...statuses].sort()) out[String(st)] = errorResponse(st, s.protocol?.name);
  if (!s.protocol)
    out.default = {
      description: 'any other failure (503 unavailable, 500 internal with requestId), in the same shape',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  return out;
}

function success(s: FastifySchema): Json {
  const status = s.success ?? 200;
  if (status === 204) return { description: 'done, no content' };
  if (status >= 300 && status < 400)
    return {
      description: http.STATUS_CODES[status] ?? 'redirect',
      headers: { Location: { schema: { type: 'string' } } },
    };
  const types = s.produces ?? ['application/json'];
  return { description: http.STATUS_CODES[status] ?? 'OK', content: Object.fromEntries(types.map((t) => [t, {}])) };
}

function errorResponse(status: number, protocol: string | undefined): Json {
  const codes = codesOf(status);
  const what = `${http.STATUS_CODES[status] ?? 'error'}${codes.length ? ` (${codes.join(', ')})` : ''}`;
  if (protocol) return { description: `${what}, answered in ${protocol}'s own error shape` };
  return { description: what, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

/** svc's JSON error body (http-kit/errors.ts errorBody). */
const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: 'one of the codes in src/errors/codes.ts',
          enum: Object.keys(ERROR_CODES),
        },
        message: { type: 'string', description: 'lowercase, names the field or parameter at fault' },
        field: { type: 'string', description: 'the field or parameter at fault, when there is one' },
        requestId: { type: 'string', description: "on a 500 only: the id in svc's log" },
      },
      additionalProperties: true,
    },
  },
};
