import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SCOPES, type Allowlists, type Scope } from '../../auth/principal.js';
import { isSecretPath } from '../../errors/secret-names.js';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Validates a request body (or params) with a zod schema. The first problem becomes a 400
 * invalid_input whose message names the field and quotes the bad value; details carry `field`.
 * A secret's value is never quoted (errors/secret-names.ts), nor a whole body that is not an
 * object (a password pasted as the body would be echoed whole): only what kind of value it was.
 */
export function parseInput<T extends z.ZodTypeAny>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data as z.infer<T>;
  const issue = r.error.issues[0];
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.') || 'body';
  const bad = issue.code === 'unrecognized_keys' ? undefined : at(value, issue.path);
  let message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
  let got = bad === undefined ? '' : ` (got ${quote(bad)})`;
  if (issue.code !== 'unrecognized_keys' && (isSecretPath(issue.path) || issue.path.length === 0)) {
    // zod's own messages can quote the value too ("received 'x'")
    if (typeof bad === 'string' && bad.length > 0 && message.includes(bad)) message = 'is not valid';
    got = bad === undefined ? '' : ` (got ${kindOf(bad)})`;
  }
  throw new SvcError('invalid_input', `${field}: ${message}${got}`, { details: { field } });
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `a ${v.length}-character string`;
  return `a ${typeof v}`;
}

function at(value: unknown, path: (string | number)[]): unknown {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

function quote(v: unknown): string {
  if (typeof v === 'string') return v.length > 40 ? `a ${v.length}-character string` : JSON.stringify(v);
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

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
export function itemRoutes(app: FastifyInstance, base: string, items: () => ManagedItems): void {
  const opts = { config: { access: 'admin' as const } };
  const id = (request: FastifyRequest) => parseInput(idParams, request.params).id;
  app.get(`${base}/:id`, opts, async (request) => items().get(id(request)));
  app.post(`${base}/:id/disable`, opts, async (request) => items().setDisabled(id(request), true));
  app.post(`${base}/:id/enable`, opts, async (request) => items().setDisabled(id(request), false));
  app.delete(`${base}/:id`, opts, async (request, reply) => {
    await items().delete(id(request));
    return reply.code(204).send();
  });
}
