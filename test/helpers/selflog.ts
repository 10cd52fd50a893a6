import { adminToken, call } from './auth.js';
import type { TestServer } from './server.js';

export interface SystemEvents {
  events: { message: string; fields: Record<string, unknown> }[];
}

/**
 * An admin search of svc's own logs (`env=_system`, index `_svclogs` or `_svcmcp`). The self-log
 * writes in the background, so it flushes and retries (up to ~3 s) until something matches.
 */
export async function searchSelfLog(srv: TestServer, q: string, index: '_svclogs' | '_svcmcp'): Promise<SystemEvents> {
  const token = await adminToken(srv);
  for (let i = 0; ; i++) {
    await srv.deps.selflog.flush();
    const params = new URLSearchParams({ q, env: '_system', index });
    const res = (await call(srv, 'GET', `/api/search?${params}`, { token })) as SystemEvents;
    if (res.events.length > 0 || i >= 30) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}
