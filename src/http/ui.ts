import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../errors/svc-error.js';

/**
 * The web UI (docs/decisions/0015-web-ui-in-the-same-process.md): built files from `web/` under /ui/. Hashed
 * assets are cached for a year; index.html is never cached, carries a fresh CSP nonce, and answers every
 * other /ui/ path so deep links survive a reload. Log text the UI shows is untrusted: the CSP allows no
 * inline script and no script from anywhere but svc itself.
 */

const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * No inline script, nothing from other origins; <style> elements only with the page's nonce
 * (CodeMirror's). Style attributes are allowed: Chromium's own contenteditable editing writes them
 * into the query editor's lines (CodeMirror redraws them at once), and an attribute cannot run script.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(reply: FastifyReply, nonce = randomBytes(16).toString('base64')): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy(nonce));
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'same-origin');
}

/** True for a browser asking for a page (its Accept names text/html), not a shipper probing `GET /`. */
export function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

/**
 * A browser's `GET /` goes to the UI; every other `GET /` keeps Elasticsearch's info answer, which
 * shippers probe. Registered on the root instance so it runs before the Elasticsearch route.
 */
export function redirectBrowsersToUi(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.url.split('?')[0] === '/' &&
      wantsHtml(request)
    ) {
      return reply.redirect('/ui/', 302);
    }
  });
}

export async function uiRoutes(app: FastifyInstance, opts: { dir: string }): Promise<void> {
  const dir = opts.dir;
  const indexPath = join(dir, 'index.html');
  // re-read when the build replaced it: the old page would name assets that are gone
  let cached: { mtimeMs: number; html: string } | undefined;
  const index = (): string | undefined => {
    if (!existsSync(indexPath)) return undefined;
    const mtimeMs = statSync(indexPath).mtimeMs;
    if (cached?.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(indexPath, 'utf8') };
    return cached.html;
  };
  // the build writes .br and .gz beside each asset (web/build/precompress.ts): sent to a browser that accepts them
  await app.register(fastifyStatic, { root: dir, serve: false, preCompressed: true });
  const config = { access: 'public' as const };

  const tags = ['ui'];
  app.get('/ui', { config, schema: { summary: 'to /ui/', tags, success: 301 } }, async (_req, reply) =>
    reply.redirect('/ui/', 301),
  );

  const uiPage = { summary: 'the web UI: a page, or an asset', tags, produces: ['text/html', '*/*'] };
  app.get('/ui/*', { config, schema: uiPage }, async (request, reply) => {
    const rel = normalize((request.params as { '*': string })['*'] ?? '');
    if (rel.startsWith('..') || rel.includes(`${sep}..`)) throw new SvcError('not_found', 'no such file');
    const file = rel && rel !== '.' ? join(dir, rel) : '';
    const isFile = file !== '' && existsSync(file) && statSync(file).isFile();
    if (rel.startsWith(`assets${sep}`)) {
      // a missing hashed asset is a 404, never the page (a browser would run HTML as a script)
      if (!isFile) throw new SvcError('not_found', `no UI asset ${rel}`);
      securityHeaders(reply);
      return reply.sendFile(rel, { immutable: true, maxAge: 365 * 86_400_000, cacheControl: true });
    }
    if (isFile && rel !== 'index.html') {
      securityHeaders(reply);
      return reply.sendFile(rel, { maxAge: 3_600_000 });
    }
    return page(reply, index());
  });
}

/** index.html with a fresh nonce for CodeMirror's style element; never cached (it names the current assets). */
function page(reply: FastifyReply, html: string | undefined): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  securityHeaders(reply, nonce);
  reply.header('Cache-Control', 'no-cache');
  if (!html) {
    return reply
      .code(503)
      .type('text/html; charset=utf-8')
      .send(
        '<!doctype html><title>svc</title><p>The web UI is not built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>',
      );
  }
  return reply.type('text/html; charset=utf-8').send(html.replaceAll(NONCE_PLACEHOLDER, nonce));
}
