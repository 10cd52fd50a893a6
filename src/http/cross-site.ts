import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SvcError } from '../errors/svc-error.js';

/**
 * Cross-site request forgery guard (docs/decisions/0015-web-ui-in-the-same-process.md). A browser sends the
 * session cookie with a form a foreign page posts, so a state-changing call authenticated by the cookie alone
 * must prove it came from svc's own pages: an `Origin` equal to svc's own (its Host, or SVC_PUBLIC_URL), or
 * the `X-Svc-Request` header, which a cross-site form cannot set. Calls with an Authorization header
 * (scripts, shippers, API keys) carry their own proof and are not affected.
 */

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Authenticated by what they carry, not by the cookie: the IdP's signed answer is posted from the
 * IdP's site, so it never has svc's Origin. Login CSRF through it (an attacker's own valid answer
 * posted into a victim's browser) is stopped elsewhere: the ACS only hands a ticket to /complete,
 * which signs in only the browser whose relay cookie holds the answered request (auth/saml/binding.ts).
 */
const EXEMPT = new Set(['/api/auth/saml/acs']);
export const CSRF_HEADER = 'x-svc-request';

/** Pure decision: may this cookie-authenticated, state-changing request go ahead? */
export function sameOrigin(
  origin: string | undefined,
  host: string | undefined,
  publicOrigin: string | undefined,
): boolean {
  if (!origin || origin === 'null') return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (publicOrigin && o.origin === publicOrigin) return true;
  return host !== undefined && o.host === host.toLowerCase();
}

function carriesCookie(request: FastifyRequest): boolean {
  return !request.headers.authorization && /(?:^|;\s*)svc_session=/.test(request.headers.cookie ?? '');
}

export function registerCrossSiteGuard(app: FastifyInstance, publicOrigin: string | undefined): void {
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0];
    if (SAFE.has(request.method) || EXEMPT.has(path)) return;
    const login = path === '/api/auth/login';
    // a login form posted from another site would sign the victim into the attacker's account
    if (!carriesCookie(request) && !(login && request.headers.origin)) return;
    if (request.headers[CSRF_HEADER] !== undefined) return;
    // request.host: the Host header, or X-Forwarded-Host when a trusted proxy sent it
    if (sameOrigin(request.headers.origin, request.host, publicOrigin)) return;
    throw new SvcError(
      'cross_site_request',
      "refused a cross-site request: state-changing calls with the session cookie must come from svc's own pages",
    );
  });
}
