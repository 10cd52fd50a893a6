import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { SamlFailure } from '../../auth/saml/failures.js';
import { SvcError } from '../../errors/svc-error.js';
import { parseInput } from './admin-input.js';
import { setSessionCookie } from './auth.js';

/** The one page every failed single sign-on ends on: the reason is in _svclogs, never in the browser. */
export const SSO_FAILED_PAGE = '/ui/sso-failed';

const loginQuery = z.object({ next: z.string().max(2000).optional() }).strict();
const acsForm = z.object({ SAMLResponse: z.string().max(1_000_000).optional(), RelayState: z.string().max(2000).optional() }).passthrough();

/**
 * SAML single sign-on (DESIGN 12): /api/auth/saml/metadata (svc's SP metadata for the IdP),
 * /api/auth/saml/login (to the IdP, coming back to `next`), /api/auth/saml/acs (the IdP's signed
 * answer, HTTP-POST binding). All public: the ACS is authenticated by the assertion's signature.
 */
export async function samlRoutes(app: FastifyInstance): Promise<void> {
  const sso = () => app.deps.sso;
  const config = { access: 'public' as const };
  // the IdP posts a form; nothing else reaches these routes with a body
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))));

  const failed = (reply: FastifyReply, e: unknown): FastifyReply => {
    if (!(e instanceof SamlFailure)) throw e;
    const { event, reason, detail } = e;
    app.deps.selflog.service(event, { reason, idp: detail.idp, name_id: detail.name_id, request_id: detail.request_id, cause: detail.cause, remote_address: reply.request.ip });
    return reply.redirect(SSO_FAILED_PAGE, 303);
  };
  const configured = () => {
    if (!sso().configured()) throw new SvcError('not_found', 'single sign-on is not configured');
  };

  app.get('/api/auth/saml/metadata', { config }, async (_request, reply) => {
    configured();
    try {
      return reply.type('application/samlmetadata+xml').send(await sso().spMetadata());
    } catch (e) {
      if (e instanceof SamlFailure) throw new SvcError('sso_unavailable', `single sign-on is not usable: ${e.reason}`);
      throw e;
    }
  });

  app.get('/api/auth/saml/login', { config }, async (request, reply) => {
    configured();
    const { next } = parseInput(loginQuery, request.query);
    try {
      return reply.header('Cache-Control', 'no-store').redirect(await sso().loginUrl(next ?? '/ui/search'), 302);
    } catch (e) {
      return failed(reply, e);
    }
  });

  app.post('/api/auth/saml/acs', { config }, async (request, reply) => {
    configured();
    const form = parseInput(acsForm, request.body);
    try {
      const { session, next } = await sso().acs(form.SAMLResponse, form.RelayState);
      setSessionCookie(reply, session.token, (Date.parse(session.expiresAt) - app.deps.clock.now()) / 1000);
      return reply.header('Cache-Control', 'no-store').redirect(next, 303);
    } catch (e) {
      return failed(reply, e);
    }
  });
}
