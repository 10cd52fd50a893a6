import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { SCOPES, type Allowlists, type Scope } from '../../auth/principal.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

/*
 * The schemas the admin routes share. A route names them in its Fastify `schema` (body, params);
 * Fastify checks the request before the handler (http-kit/schema/compiler.ts), and a problem is a 400
 * invalid_input naming the field (http-kit/schema/input-error.ts).
 */

/** Accepts svc's scope names and the spec's labels ("Standard API", "Admin API", "MCP server"). */
const SCOPE_LABELS: Record<string, Scope> = { 'standard api': 'standard', 'admin api': 'admin', 'mcp server': 'mcp' };
export const scopeSchema = z.preprocess(
  (v) => (typeof v === 'string' ? (SCOPE_LABELS[v.toLowerCase()] ?? v) : v),
  z.enum(SCOPES as [Scope, ...Scope[]], { errorMap: () => ({ message: 'want "standard", "admin" or "mcp"' }) }),
);

const allowName = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const allowList = z.array(allowName).max(1000, 'at most 1000 entries');
export const allowSchema = z
  .object({ envs: allowList.default(['*']), indexes: allowList.default(['*']), tools: allowList.default(['*']) })
  .strict() as z.ZodType<Allowlists, z.ZodTypeDef, unknown>;

export const nameSchema = (max: number) =>
  z
    .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

/**
 * An environment or index name: taken as sent, never trimmed ("prod\n" must not become "prod"),
 * and checked by the one name rule (control/names.ts) where it is used.
 */
export const envIndexName = z.string({ invalid_type_error: 'must be a string', required_error: 'is required' });

export const idParams = z.object({ id: z.string().min(1).max(100) });

/**
 * Route options of a resource any user or Standard API key manages (monitors, saved searches,
 * dashboards): `doc` for a route, `item` for one with `{id}`. Generic, so the type provider still
 * sees each route's own schemas.
 */
export function standardRouteDocs(tag: string) {
  const config = { access: 'standard' as const };
  const doc = <S extends FastifySchema>(summary: string, more?: S) => ({
    config,
    schema: { summary, tags: [tag], ...(more as S) },
  });
  const item = <S extends FastifySchema>(summary: string, more?: S) =>
    doc(summary, { params: idParams, ...(more as S) });
  return { doc, item };
}

/** What the item routes of a managed resource need from its service. */
export interface ManagedItems {
  get(id: string): unknown;
  setDisabled(id: string, disabled: boolean): Promise<unknown>;
  delete(id: string): Promise<void>;
}

/**
 * `GET {base}/:id`, `POST {base}/:id/disable` and `/enable`, `DELETE {base}/:id` (204): the same
 * for API keys, ingest tokens and users.
 */
export function itemRoutes(app: FastifyInstance, base: string, items: () => ManagedItems, what: string): void {
  const api = app.withTypeProvider<ZodTypes>();
  const config = { access: 'admin' as const };
  const schema = (summary: string, success?: number) => ({ summary, tags: ['admin'], params: idParams, success });
  api.get(`${base}/:id`, { config, schema: schema(`${what}, by id`) }, async (request) =>
    items().get(request.params.id),
  );
  api.post(`${base}/:id/disable`, { config, schema: schema(`disable ${what}`) }, async (request) =>
    items().setDisabled(request.params.id, true),
  );
  api.post(`${base}/:id/enable`, { config, schema: schema(`enable ${what}`) }, async (request) =>
    items().setDisabled(request.params.id, false),
  );
  api.delete(`${base}/:id`, { config, schema: schema(`delete ${what}`, 204) }, async (request, reply) => {
    await items().delete(request.params.id);
    return reply.code(204).send();
  });
}
