import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthService } from '../auth/service.js';
import type { Principal } from '../auth/principal.js';
import { canUseTool, hasScope, isAdmin } from '../auth/rbac.js';
import { SvcError, bug } from '../errors/svc-error.js';
import { ALL_INGEST_SCHEMES, extractToken } from '../http-kit/ingest-token.js';
import type { Access } from '../http-kit/access.js';

/** The session cookie the login route sets (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'svc_session';

/**
 * The credential of a REST or MCP call: `Authorization: Bearer <svk_…|svi_…|JWT>`, else the session
 * cookie. The header wins when both are present.
 */
export function restCredential(request: FastifyRequest): string | undefined {
  const auth = request.headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1] : undefined;
  }
  return sessionCookie(request.headers.cookie);
}

/** The ingest token of a push in any shipper's native form (http-kit/ingest-token.ts). */
export function ingestCredential(request: FastifyRequest): string | undefined {
  return extractToken(request.headers.authorization, ALL_INGEST_SCHEMES)?.token;
}

function sessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return v.length > 0 ? decodeCookieValue(v) : undefined;
    }
  }
  return undefined;
}

/**
 * A cookie value as sent, percent-decoded when it decodes. A malformed escape (`%E0%A4%A`) is kept
 * as it is: no session token contains `%`, so it then fails verification as any wrong token does
 * (401), where decodeURIComponent's URIError would have been a 500.
 */
function decodeCookieValue(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** Throws 403 insufficient_scope unless `p` may use a route of class `access`. Pure. */
export function enforceAccess(access: Access, p: Principal, mcpKeyExists: boolean): void {
  switch (access) {
    case 'public':
      return;
    case 'ingest':
      if (p.kind !== 'ingest_token')
        throw new SvcError('insufficient_scope', 'this endpoint accepts ingest tokens only');
      return;
    case 'authenticated':
    case 'standard':
      if (p.kind === 'ingest_token') throw new SvcError('insufficient_scope', 'ingest tokens can only push logs');
      if (!hasScope(p, 'standard'))
        throw new SvcError('insufficient_scope', 'this API key lacks the Standard API scope');
      return;
    case 'admin':
      if (!isAdmin(p))
        throw new SvcError('insufficient_scope', 'this endpoint needs the Admin API scope or an admin user');
      return;
    case 'agent':
      // the Standard API, or an MCP key whose tool allowlist names the agent
      // (docs/decisions/0018-llm-provider-and-agent.md)
      if (p.kind === 'api_key' && !hasScope(p, 'standard') && p.scopes.has('mcp')) {
        if (!canUseTool(p, 'agent'))
          throw new SvcError(
            'insufficient_scope',
            'this MCP key may use the agent only if its tool allowlist has "agent"',
          );
        return;
      }
      return enforceAccess('standard', p, mcpKeyExists);
    case 'mcp':
      if (p.kind === 'ingest_token') throw new SvcError('insufficient_scope', 'ingest tokens can only push logs');
      if (p.kind === 'api_key' && !p.scopes.has('mcp'))
        throw new SvcError('insufficient_scope', 'this API key lacks the MCP server scope');
      if (p.kind === 'user' && mcpKeyExists)
        throw new SvcError('insufficient_scope', '/mcp needs an API key with the MCP server scope');
      return;
    default:
      throw bug(`unknown access class "${String(access)}"`);
  }
}

/**
 * Registers the onRequest hook that authenticates every request and enforces its route's
 * `config.access` (default: authenticated) before any body is read. Sets request.principal.
 * 401: missing, unknown, expired, disabled or deleted credential; 403: valid but wrong scope.
 */
export function registerAuthHook(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    const access: Access = request.routeOptions.config?.access ?? 'authenticated';
    if (access === 'public') return;
    const secret = access === 'ingest' ? ingestCredential(request) : restCredential(request);
    if (!secret)
      throw new SvcError(
        'missing_credentials',
        access === 'ingest'
          ? 'missing ingest token'
          : 'missing credentials: log in or send Authorization: Bearer <API key>',
      );
    try {
      // any valid credential on a route of the wrong class is 403, not 401: it is known but not allowed here
      const p = await auth.authenticate(secret);
      request.principal = p;
      enforceAccess(access, p, auth.mcpKeyExists());
    } catch (e) {
      if (e instanceof SvcError) recordRejection(request, secret, e);
      throw e;
    }
  });
}

/** A refused credential goes to `_svclogs` as credential_rejected: never the secret, at most its last four. */
function recordRejection(request: FastifyRequest, secret: string, err: SvcError): void {
  const credential = secret.startsWith('svk_') ? 'api_key' : secret.startsWith('svi_') ? 'ingest_token' : 'session';
  const { auth, selflog } = request.server.deps;
  const known = credential === 'session' ? undefined : auth.identify(secret);
  selflog?.service('credential_rejected', {
    reason: err.code,
    credential,
    path: request.url.split('?')[0],
    method: request.method,
    last_four: credential === 'session' ? undefined : secret.slice(-4),
    key_id: known?.id,
    key_name: known?.name,
    user: request.principal?.kind === 'user' ? request.principal.name : undefined,
    remote_address: request.ip,
  });
}
