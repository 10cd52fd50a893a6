import { ALLOW_ALL, type Allowlists, type Scope } from '../control/access-types.js';

// the stored data model of access (control/access-types.ts), re-exported for auth's many readers
export { ALLOW_ALL, SCOPES, type Allowlists, type Scope } from '../control/access-types.js';

interface PrincipalBase {
  id: string;
  name: string;
}

/** A logged-in user (password or SAML session). Admins hold the admin and standard scopes. */
export interface UserPrincipal extends PrincipalBase {
  kind: 'user';
  role: 'admin' | 'user';
  scopes: ReadonlySet<Scope>;
  allow: Allowlists;
  /** JWT id, for logout / revocation. */
  sessionId: string;
}

/** An API key, authenticated through the same path as a session: a synthesized principal. */
export interface ApiKeyPrincipal extends PrincipalBase {
  kind: 'api_key';
  scopes: ReadonlySet<Scope>;
  allow: Allowlists;
  createdBy: string;
}

/** An ingest token: pushes logs only, pinned to an env and optionally an index. */
export interface IngestPrincipal extends PrincipalBase {
  kind: 'ingest_token';
  pin: { env: string; index?: string };
}

export type Principal = UserPrincipal | ApiKeyPrincipal | IngestPrincipal;

/** The principal svc itself acts as (self-logs, retention sweeps); never reachable over HTTP. */
export const SYSTEM_PRINCIPAL: ApiKeyPrincipal = Object.freeze({
  kind: 'api_key',
  id: 'system',
  name: 'svc',
  scopes: new Set<Scope>(['standard', 'admin']),
  allow: ALLOW_ALL,
  createdBy: 'svc',
});
