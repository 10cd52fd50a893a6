import type { Scope } from '../../src/auth/principal.js';

/** Anything with the base URL of a running svc (TestServer, or a child-process server). */
export interface HasUrl {
  url: string;
}

/** The admin password startTestServer sets (SVC_ADMIN_PASSWORD). */
export const TEST_ADMIN_PASSWORD = 'test-admin-password';

const adminTokens = new WeakMap<object, string>();

/** Calls svc and fails loudly with the answer's body when the status is not the expected one. */
export async function call(
  srv: HasUrl,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; expect?: number | number[] } = {},
): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const expect = opts.expect ?? (method === 'POST' ? [200, 201] : [200, 204]);
  const ok = Array.isArray(expect) ? expect.includes(res.status) : res.status === expect;
  if (!ok) throw new Error(`${method} ${path}: expected ${JSON.stringify(expect)}, got ${res.status}: ${text}`);
  return text.length > 0 ? JSON.parse(text) : undefined;
}

/** Logs in; answers the session JWT. */
export async function login(srv: HasUrl, username: string, password: string): Promise<string> {
  const body = (await call(srv, 'POST', '/api/auth/login', { body: { username, password }, expect: 200 })) as {
    token: string;
  };
  return body.token;
}

/** A session JWT of the `admin` user (cached per server). */
export async function adminToken(srv: HasUrl, password = TEST_ADMIN_PASSWORD): Promise<string> {
  const cached = adminTokens.get(srv);
  if (cached) return cached;
  const token = await login(srv, 'admin', password);
  adminTokens.set(srv, token);
  return token;
}

export interface ApiKeyOptions {
  scopes: Scope[];
  name?: string;
  allow?: { envs?: string[]; indexes?: string[]; tools?: string[] };
  expiresInDays?: number;
  purpose?: string;
}

let seq = 0;
function uniqueName(prefix: string): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Creates an API key through the admin API; answers its `svk_` secret. */
export async function createApiKey(srv: HasUrl, opts: ApiKeyOptions): Promise<string> {
  return (await createApiKeyRecord(srv, opts)).secret;
}

/** Like createApiKey, answering the whole create answer (id, name, scopes, …, secret). */
export async function createApiKeyRecord(
  srv: HasUrl,
  opts: ApiKeyOptions,
): Promise<{ id: string; name: string; secret: string } & Record<string, unknown>> {
  const body: Record<string, unknown> = { name: opts.name ?? uniqueName('key'), scopes: opts.scopes };
  if (opts.allow) body.allow = { envs: ['*'], indexes: ['*'], tools: ['*'], ...opts.allow };
  if (opts.expiresInDays !== undefined) body.expiresInDays = opts.expiresInDays;
  if (opts.purpose !== undefined) body.purpose = opts.purpose;
  return (await call(srv, 'POST', '/api/admin/api-keys', { token: await adminToken(srv), body, expect: 201 })) as {
    id: string;
    name: string;
    secret: string;
  };
}

/**
 * One JSON request with a bearer token, answering the status and the parsed body whatever the
 * status is: for tests that compare statuses (`call` asserts one).
 */
export async function send<T = unknown>(
  srv: HasUrl,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Creates an ingest token pinned to `env` (and `index` when given); answers its `svi_` secret. */
export async function createIngestToken(
  srv: HasUrl,
  opts: { env: string; index?: string; name?: string },
): Promise<string> {
  const body: Record<string, unknown> = { name: opts.name ?? uniqueName('token'), env: opts.env };
  if (opts.index !== undefined) body.index = opts.index;
  const res = (await call(srv, 'POST', '/api/admin/ingest-tokens', {
    token: await adminToken(srv),
    body,
    expect: 201,
  })) as { secret: string };
  return res.secret;
}

/**
 * Sends `events` to native ingest as NDJSON with a fresh ingest token pinned to `env` (and `index`),
 * and checks the 200: the setup of every test that needs a few events behind a real server.
 */
export async function ingestEvents(
  srv: HasUrl,
  events: readonly object[],
  opts: { env?: string; index?: string } = {},
): Promise<void> {
  const token = await createIngestToken(srv, { env: opts.env ?? 'default', index: opts.index });
  const res = await fetch(`${srv.url}/api/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body: events.map((e) => JSON.stringify(e)).join('\n') + '\n',
  });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** Creates an environment (no-op if it exists already); `default` always exists. */
export async function createEnv(srv: HasUrl, name: string, opts: { retentionDays?: number } = {}): Promise<void> {
  await call(srv, 'POST', '/api/admin/envs', {
    token: await adminToken(srv),
    body: { name, ...opts },
    expect: [201, 409],
  });
}

/** Creates a local user through the admin API; answers its id. */
export async function createUser(
  srv: HasUrl,
  opts: {
    username: string;
    password: string;
    role?: 'admin' | 'user';
    allow?: { envs?: string[]; indexes?: string[] };
  },
): Promise<string> {
  const body: Record<string, unknown> = { username: opts.username, password: opts.password };
  if (opts.role) body.role = opts.role;
  if (opts.allow) body.allow = { envs: ['*'], indexes: ['*'], tools: ['*'], ...opts.allow };
  const res = (await call(srv, 'POST', '/api/admin/users', { token: await adminToken(srv), body, expect: 201 })) as {
    id: string;
  };
  return res.id;
}
