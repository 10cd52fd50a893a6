/**
 * The access matrix of docs/decisions/0003-access-classes-and-credentials.md: for each credential, the exact
 * status of each endpoint class. Shared by the probe test (in process, one route per access class) and the
 * end-to-end test (a real svc process and the real paths).
 */
export type EndpointClass = 'search' | 'admin' | 'mcp' | 'ingest';

export type CredentialName =
  | 'none'
  | 'unknown secret'
  | 'standard key'
  | 'admin key'
  | 'MCP key'
  | 'expired key'
  | 'disabled key'
  | 'deleted key'
  | 'ingest token'
  | 'user session'
  | 'admin session';

/** After an MCP-scoped key exists (the matrix creates one). */
export const EXPECTED: Record<CredentialName, Record<EndpointClass, number>> = {
  none: { search: 401, admin: 401, mcp: 401, ingest: 401 },
  'unknown secret': { search: 401, admin: 401, mcp: 401, ingest: 401 },
  'standard key': { search: 200, admin: 403, mcp: 403, ingest: 403 },
  'admin key': { search: 200, admin: 200, mcp: 403, ingest: 403 },
  'MCP key': { search: 403, admin: 403, mcp: 200, ingest: 403 },
  'expired key': { search: 401, admin: 401, mcp: 401, ingest: 401 },
  'disabled key': { search: 401, admin: 401, mcp: 401, ingest: 401 },
  'deleted key': { search: 401, admin: 401, mcp: 401, ingest: 401 },
  'ingest token': { search: 403, admin: 403, mcp: 403, ingest: 200 },
  'user session': { search: 200, admin: 403, mcp: 403, ingest: 403 },
  'admin session': { search: 200, admin: 200, mcp: 403, ingest: 403 },
};

/** Before any MCP-scoped key exists, a logged-in user's session may use /mcp; never anonymous. */
export const EXPECTED_MCP_BEFORE_ANY_MCP_KEY: Partial<Record<CredentialName, number>> = {
  none: 401,
  'user session': 200,
  'admin session': 200,
  'standard key': 403,
  'admin key': 403,
  'ingest token': 403,
};

/** A random, well-formed API key secret that was never issued. */
export const UNKNOWN_SECRET = 'svk_' + 'Zz9'.repeat(14) + 'Q';
