/**
 * Finds the ingest token in the native auth forms of the shippers:
 *   Authorization: Bearer <t> | ApiKey <t> | Splunk <t> | Basic base64(user:<t>)
 * ES API keys are often sent as base64("id:key"): when the value is not an svi_ token as it stands
 * we try that decoding too. Basic auth carries the token as password (or as user with an empty
 * password, as some UIs only offer a user field).
 */

export type AuthScheme = 'bearer' | 'apikey' | 'splunk' | 'basic';

export interface ExtractedToken {
  scheme: AuthScheme;
  token: string;
}

export const INGEST_TOKEN_PREFIX = 'svi_';

function fromBase64Pair(value: string): string | undefined {
  let decoded: string;
  try {
    decoded = Buffer.from(value, 'base64').toString('utf8');
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  const pass = decoded.slice(colon + 1);
  if (pass.length > 0) return pass;
  return user.length > 0 ? user : undefined;
}

/** Returns the token of an Authorization header in one of `allowed` schemes; undefined when absent. */
export function extractToken(authorization: string | undefined, allowed: readonly AuthScheme[]): ExtractedToken | undefined {
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
  if (scheme === 'apikey' && !rest.startsWith(INGEST_TOKEN_PREFIX)) {
    const t = fromBase64Pair(rest);
    if (t !== undefined && t.startsWith(INGEST_TOKEN_PREFIX)) return { scheme, token: t };
  }
  return { scheme, token: rest };
}
