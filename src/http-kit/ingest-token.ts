import { API_KEY_PREFIX, INGEST_TOKEN_PREFIX } from '../auth/secrets.js';

/**
 * The one reader of an ingest token in the Authorization header, in the native forms of the
 * shippers: `Bearer <t>` | `ApiKey <t>` | `Splunk <t>` | `Basic base64(user:<t>)`.
 * ES API keys are often sent as base64("id:key"): when an ApiKey value is not an svc secret as it
 * stands we try that decoding too. Basic auth carries the token as password (or as user with an
 * empty password, as some UIs only offer a user field). Used by the auth hook for the native route
 * (every scheme) and by each compatibility route (the schemes its shippers use).
 */

export type AuthScheme = 'bearer' | 'apikey' | 'splunk' | 'basic';

export const ALL_INGEST_SCHEMES: readonly AuthScheme[] = ['bearer', 'apikey', 'splunk', 'basic'];

export interface ExtractedToken {
  scheme: AuthScheme;
  token: string;
}

/** An ingest token, or an API key (which ingest refuses as the wrong kind of credential, not as unknown). */
function isSvcSecret(s: string): boolean {
  return s.startsWith(INGEST_TOKEN_PREFIX) || s.startsWith(API_KEY_PREFIX);
}

function fromBase64Pair(value: string): string | undefined {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  const pass = decoded.slice(colon + 1);
  if (pass.length > 0) return pass;
  return user.length > 0 ? user : undefined;
}

/** Returns the token of an Authorization header in one of `allowed` schemes; undefined when absent. */
export function extractToken(
  authorization: string | undefined,
  allowed: readonly AuthScheme[],
): ExtractedToken | undefined {
  if (!authorization) return undefined;
  const value = authorization.trim();
  const sp = value.indexOf(' ');
  if (sp < 0) return undefined;
  const scheme = value.slice(0, sp).toLowerCase() as AuthScheme;
  const rest = value.slice(sp + 1).trim();
  if (!allowed.includes(scheme) || rest.length === 0) return undefined;
  if (scheme === 'basic') {
    const t = fromBase64Pair(rest);
    return t === undefined ? undefined : { scheme, token: t };
  }
  if (scheme === 'apikey' && !isSvcSecret(rest)) {
    const t = fromBase64Pair(rest);
    if (t !== undefined && isSvcSecret(t)) return { scheme, token: t };
  }
  return { scheme, token: rest };
}
