import type { Access } from '../../http-kit/access.js';

type Json = Record<string, unknown>;

/** How callers authenticate (docs/access.md); a route's access class picks among them. */
export const SECURITY_SCHEMES: Record<string, Json> = {
  session: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'a session token from POST /api/auth/login (or single sign-on), as Authorization: Bearer <token>',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'svc_session',
    description: 'the same session in the HttpOnly cookie the login sets (the web UI)',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svk_…',
    description: 'an API key (scopes: Standard API, Admin API, MCP server), as Authorization: Bearer svk_…',
  },
  ingestToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svi_…',
    description: 'an ingest token, as Authorization: Bearer svi_…',
  },
  ingestApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'an ingest token as Elasticsearch clients send an API key: ApiKey svi_… (or base64 of id:svi_…)',
  },
  ingestSplunk: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'an ingest token as Splunk HEC clients send it: Splunk svi_…',
  },
  ingestBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'an ingest token as the Basic password (any user name), or as the user with an empty password',
  },
};

const USER_OR_KEY = [{ session: [] }, { sessionCookie: [] }, { apiKey: [] }];
const ANY_INGEST = ['ingestToken', 'ingestApiKey', 'ingestSplunk', 'ingestBasic'];

/**
 * The security requirement of a route (alternatives: any one will do). Which scope or role each
 * class needs is said in docs/access.md; `protocolAuth` names the schemes a compatibility route
 * reads itself.
 */
export function securityOf(access: Access, protocolAuth?: string[]): Json[] {
  if (protocolAuth) return protocolAuth.map((s) => ({ [s]: [] }));
  switch (access) {
    case 'public':
      return [];
    case 'ingest':
      return ANY_INGEST.map((s) => ({ [s]: [] }));
    default:
      return USER_OR_KEY;
  }
}

/** Who may call a route of each access class, for the reference (enforced by auth-hook.ts). */
export const ACCESS_TEXT: Record<Access, string> = {
  public: 'anyone, no credentials',
  authenticated: 'a user session (any role) or an API key with the Standard or Admin API scope',
  standard: 'a user session (any role) or an API key with the Standard or Admin API scope; RBAC narrows what it reads',
  admin: "an admin user's session or an API key with the Admin API scope",
  mcp: 'an API key with the MCP server scope (a user session only while no such key exists)',
  ingest: 'an ingest token, in any of its forms (Bearer, ApiKey, Splunk, Basic)',
  agent: 'as standard, or an API key with the MCP server scope whose tool allowlist has "agent"',
};
