import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../auth/principal.js';
import { SvcError } from '../../errors/svc-error.js';
import { SESSION_COOKIE } from '../auth-hook.js';
import { principalOf } from '../../http-kit/access.js';
import type { ZodTypes } from '../../http-kit/schema/compiler.js';

const login = z
  .object({
    username: z
      .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
      .min(1, 'must not be empty')
      .max(200),
    password: z
      .string({ invalid_type_error: 'must be a string', required_error: 'is required' })
      .min(1, 'must not be empty')
      .max(1024),
  })
  .strict();

/**
 * HttpOnly, SameSite=Strict; Secure when the request came over HTTPS (svc's own TLS, or
 * X-Forwarded-Proto from a trusted proxy) or people reach svc at an https SVC_PUBLIC_URL.
 */
export function setSessionCookie(reply: FastifyReply, token: string, maxAgeSecs: number): void {
  const httpsUrl = reply.server.deps.config.publicUrl?.startsWith('https:') ?? false;
  const secure = reply.request.protocol === 'https' || httpsUrl ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeSecs))}${secure}`,
  );
}

/** Who the caller is, for the UI and for tools checking their key. */
export function describePrincipal(p: Principal): Record<string, unknown> {
  if (p.kind === 'ingest_token') return { kind: p.kind, id: p.id, name: p.name, pin: p.pin };
  const base = { kind: p.kind, id: p.id, name: p.name, scopes: [...p.scopes], allow: p.allow };
  return p.kind === 'user' ? { ...base, role: p.role } : base;
}

/** /api/auth/login (public, rate-limited), /api/auth/logout, /api/auth/logout-everywhere, /api/auth/me, /api/auth/options (public). */
export async function authRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypes>();
  const tags = ['auth'];
  const schema = {
    summary: 'log in: a session token, also set as the session cookie',
    tags,
    body: login,
    errors: [429],
  };
  api.post('/api/auth/login', { config: { access: 'public' }, schema }, async (request, reply) => {
    const input = request.body;
    const result = await app.deps.auth.login(input.username, input.password, request.ip).catch((e: unknown) => {
      const reason = (e as { code?: string }).code ?? 'internal';
      // the name only when such a user exists: a password typed into the name field must not be logged
      const user = app.deps.auth.users.byUsername(input.username) ? input.username : undefined;
      app.deps.selflog?.service('credential_rejected', {
        reason,
        credential: 'password',
        path: '/api/auth/login',
        method: 'POST',
        user,
        remote_address: request.ip,
      });
      throw e;
    });
    setSessionCookie(reply, result.token, (Date.parse(result.expiresAt) - app.deps.clock.now()) / 1000);
    return reply.header('Cache-Control', 'no-store').send(result);
  });

  const logout = { summary: 'end this session', tags, success: 204 };
  app.post('/api/auth/logout', { config: { access: 'authenticated' }, schema: logout }, async (request, reply) => {
    await app.deps.auth.logout(principalOf(request));
    setSessionCookie(reply, '', 0);
    return reply.code(204).send();
  });

  // "sign out everywhere": a stolen or forgotten session elsewhere ends too
  const everywhere = { summary: "end every session of the caller's user", tags, success: 204 };
  app.post(
    '/api/auth/logout-everywhere',
    { config: { access: 'authenticated' }, schema: everywhere },
    async (request, reply) => {
      const p = principalOf(request);
      if (p.kind !== 'user')
        throw new SvcError(
          'insufficient_scope',
          'only a logged-in user has sessions to end; an API key is disabled or deleted under Admin → API keys',
        );
      await app.deps.auth.users.endSessions(p.id);
      setSessionCookie(reply, '', 0);
      return reply.code(204).send();
    },
  );

  // what the login page offers
  const options = { summary: 'what the login page offers (single sign-on or not)', tags };
  app.get('/api/auth/options', { config: { access: 'public' }, schema: options }, async () => ({
    saml: { enabled: app.deps.sso.configured() },
  }));

  app.get(
    '/api/auth/me',
    { config: { access: 'authenticated' }, schema: { summary: 'who the caller is', tags } },
    async (request) => describePrincipal(principalOf(request)),
  );
}
