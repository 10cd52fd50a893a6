import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { RELAY_COOKIE, REQUEST_TTL_MS } from '../../auth/saml/binding.js';
import { SamlFailure } from '../../auth/saml/failures.js';
import { SamlLoginLimiter } from '../../auth/saml/login-limit.js';
import type { SsoLogin } from '../../auth/saml/sso.js';
import { SvcError } from '../../errors/svc-error.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';
import { setSessionCookie } from './auth.js';

/** The one page every failed single sign-on ends on: the reason is in _svclogs, never in the browser. */
export const SSO_FAILED_PAGE = '/ui/sso-failed';
const COMPLETE = '/api/auth/saml/complete';

const loginQuery = z.object({ next: z.string().max(2000).optional() }).strict();
const acsForm = z
  .object({ SAMLResponse: z.string().max(1_000_000).optional(), RelayState: z.string().max(2000).optional() })
  .passthrough();
const completeQuery = z.object({ ticket: z.string().max(8000).optional() }).strict();

/** The relay cookie's value in a request (svc's ids are hex, `_` and `.`: nothing to decode). */
function relayCookie(header: string | undefined): string | undefined {
  return /(?:^|;\s*)svc_saml=([0-9a-f_.]*)/.exec(header ?? '')?.[1];
}

/**
 * SAML single sign-on (docs/saml.md; docs/decisions/0016-saml-match-only.md): /api/auth/saml/metadata (svc's
 * SP metadata for the IdP), /api/auth/saml/login (to the IdP, coming back to `next`; sets the relay cookie),
 * /api/auth/saml/acs (the IdP's signed answer, HTTP-POST binding, posted from the IdP's site),
 * /api/auth/saml/complete (the ACS's ticket, redeemed only with the relay cookie of the browser that
 * started the login). All public: the ACS is authenticated by the assertion's signature, /complete
 * by the ticket and the cookie together.
 */
export async function samlRoutes(app: FastifyInstance): Promise<void> {
  const sso = () => app.deps.sso;
  const config = { access: 'public' as const };
  // the IdP posts a form; nothing else reaches these routes with a body
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  const failed = (reply: FastifyReply, e: unknown): FastifyReply => {
    if (!(e instanceof SamlFailure)) throw e;
    const { event, reason, detail } = e;
    app.deps.selflog.service(event, {
      reason,
      idp: detail.idp,
      name_id: detail.name_id,
      request_id: detail.request_id,
      cause: detail.cause,
      remote_address: reply.request.ip,
    });
    return reply.redirect(SSO_FAILED_PAGE, 303);
  };
  const configured = () => {
    if (!sso().configured()) throw new SvcError('not_found', 'single sign-on is not configured');
  };
  const limiter = new SamlLoginLimiter(app.deps.clock);
  // Lax, not Strict: it must come along on the top-level GET the ACS redirects to; no cross-site
  // POST (the ACS) ever gets it, which is why the ACS hands over to /complete
  const setRelay = (reply: FastifyReply, value: string, maxAgeSecs: number) => {
    const https = reply.request.protocol === 'https' || app.deps.config.publicUrl?.startsWith('https:');
    reply.header(
      'Set-Cookie',
      `${RELAY_COOKIE}=${value}; Path=/api/auth/saml; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSecs}${https ? '; Secure' : ''}`,
    );
  };
  const signedIn = (reply: FastifyReply, login: SsoLogin) => {
    setSessionCookie(reply, login.session.token, (Date.parse(login.session.expiresAt) - app.deps.clock.now()) / 1000);
    return reply.header('Cache-Control', 'no-store').redirect(login.next, 303);
  };

  const api = app.withTypeProvider<ZodTypes>();
  const tags = ['auth'];
  const metadata = {
    summary: "svc's SAML service provider metadata",
    tags,
    produces: ['application/samlmetadata+xml'],
    errors: [404, 503],
  };
  api.get('/api/auth/saml/metadata', { config, schema: metadata }, async (_request, reply) => {
    configured();
    try {
      return reply.type('application/samlmetadata+xml').send(await sso().spMetadata());
    } catch (e) {
      if (e instanceof SamlFailure) throw new SvcError('sso_unavailable', `single sign-on is not usable: ${e.reason}`);
      throw e;
    }
  });

  const login = {
    summary: "single sign-on: to the IdP's login page",
    tags,
    querystring: loginQuery,
    success: 302,
    errors: [404, 429],
  };
  api.get('/api/auth/saml/login', { config, schema: login }, async (request, reply) => {
    configured();
    const { next } = request.query;
    limiter.take(request.ip);
    try {
      const start = await sso().start(next ?? '/ui/search');
      setRelay(
        reply,
        sso().binding.withPending(relayCookie(request.headers.cookie), start.requestId, app.deps.clock.now()),
        REQUEST_TTL_MS / 1000,
      );
      return reply.header('Cache-Control', 'no-store').redirect(start.url, 302);
    } catch (e) {
      return failed(reply, e);
    }
  });

  const acs = {
    summary: "the IdP's signed answer (HTTP-POST binding, a form)",
    tags,
    body: acsForm,
    consumes: ['application/x-www-form-urlencoded'],
    success: 303,
    errors: [404],
  };
  api.post('/api/auth/saml/acs', { config, schema: acs }, async (request, reply) => {
    configured();
    const form = request.body;
    try {
      const out = await sso().acs(form.SAMLResponse, form.RelayState);
      if ('login' in out) return signedIn(reply, out.login);
      // a top-level GET, so the browser sends its SameSite=Lax relay cookie with it
      return reply.header('Cache-Control', 'no-store').redirect(`${COMPLETE}?ticket=${out.ticket}`, 303);
    } catch (e) {
      return failed(reply, e);
    }
  });

  const complete = {
    summary: "redeems the ACS's ticket with the relay cookie: signed in",
    tags,
    querystring: completeQuery,
    success: 303,
    errors: [404],
  };
  api.get(COMPLETE, { config, schema: complete }, async (request, reply) => {
    configured();
    const { ticket } = request.query;
    const now = app.deps.clock.now();
    const pending = sso().binding.pendingIds(relayCookie(request.headers.cookie), now);
    try {
      const login = await sso().complete(ticket, pending);
      // this login is done: its id leaves the cookie, so the ticket cannot be redeemed twice
      const rest = pending.filter((id) => !login.requestId || id !== login.requestId);
      setRelay(reply, rest.join('.'), rest.length > 0 ? REQUEST_TTL_MS / 1000 : 0);
      return signedIn(reply, login);
    } catch (e) {
      return failed(reply, e);
    }
  });
}
