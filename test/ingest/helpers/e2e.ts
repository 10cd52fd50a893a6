import type { EventJson } from '../../../src/query/types.js';
import { createApiKey, createEnv, createIngestToken, type HasUrl } from '../../helpers/auth.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * A real svc (control plane, storage, search) for end-to-end protocol tests: an env `shipping`,
 * an ingest token for it without a pinned index, one pinned to index `pinned`, and an API key to
 * search with.
 */
export interface E2E {
  srv: TestServer;
  token: string;
  pinnedToken: string;
  searchKey: string;
  close(): Promise<void>;
}

export const E2E_ENV = 'shipping';

export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  const srv = await startTestServer(env);
  await createEnv(srv, E2E_ENV);
  const token = await createIngestToken(srv, { env: E2E_ENV });
  const pinnedToken = await createIngestToken(srv, { env: E2E_ENV, index: 'pinned' });
  const searchKey = await createApiKey(srv, { scopes: ['standard'] });
  return { srv, token, pinnedToken, searchKey, close: () => srv.close() };
}

/** GET /api/search with the API key; answers the events (newest first). */
export async function searchEvents(
  srv: HasUrl,
  key: string,
  params: { q?: string; env?: string; index?: string; from?: string; to?: string; limit?: number },
): Promise<EventJson[]> {
  const qs = new URLSearchParams({
    q: params.q ?? '*',
    env: params.env ?? E2E_ENV,
    limit: String(params.limit ?? 1000),
  });
  if (params.index) qs.set('index', params.index);
  if (params.from) qs.set('from', params.from);
  if (params.to) qs.set('to', params.to);
  const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { events?: EventJson[] };
  if (res.status !== 200 || !body.events) throw new Error(`search ${qs}: ${res.status} ${JSON.stringify(body)}`);
  return body.events;
}
