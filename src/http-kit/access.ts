import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { bug } from '../errors/svc-error.js';

/**
 * The contract between a route and the auth hook (http/auth-hook.ts), which sits above every route:
 * a route declares who may call it (`config.access`), the hook authenticates the caller before the
 * handler runs and leaves the principal on the request.
 *
 * public: anyone; authenticated / standard: a logged-in user or a key with the Standard API scope;
 * admin: the Admin API scope or an admin user; mcp: the /mcp rules; ingest: ingest tokens only;
 * agent: standard, or an MCP key whose tool allowlist has the agent.
 */
export type Access = 'public' | 'authenticated' | 'standard' | 'admin' | 'mcp' | 'ingest' | 'agent';

/** The principal the hook set; a route that runs without one is a bug (it declared `public`). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw bug(`no principal on ${request.method} ${request.url.split('?')[0]}: route is public?`);
  return request.principal;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; set by the auth hook for every non-public route. */
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Who may call a route (Access above); the auth hook enforces it before the handler runs. */
    access?: Access;
  }
}
