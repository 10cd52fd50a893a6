import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { SvcError } from '../errors/svc-error.js';
import { VERSION } from '../version.js';
import { sendError, toSvcError } from '../http-kit/errors.js';
import type { AppDeps } from './deps.js';
import { versionRoutes } from './routes/version.js';
import { registerAuthHook } from './auth-hook.js';
import { registerAuditTrail } from './audit.js';
import { authRoutes } from './routes/auth.js';
import { samlRoutes } from './routes/saml.js';
import { adminApiKeyRoutes } from './routes/admin-api-keys.js';
import { adminIngestTokenRoutes } from './routes/admin-ingest-tokens.js';
import { adminEnvRoutes } from './routes/admin-envs.js';
import { adminUserRoutes } from './routes/admin-users.js';
import { adminSettingsRoutes } from './routes/admin-settings.js';
import { adminGcRoutes } from './routes/admin-gc.js';
import { adminDeleteRoutes } from './routes/admin-delete.js';
import { adminNodeRoutes } from './routes/admin-nodes.js';
import { adminLookupRoutes } from './routes/admin-lookups.js';
import { searchRoutes } from './routes/search.js';
import { catalogRoutes } from './routes/catalog.js';
import { languageRoutes } from './routes/language.js';
import { contextRoutes } from './routes/context.js';
import { exportRoutes } from './routes/export.js';
import { monitorRoutes } from './routes/monitors.js';
import { savedSearchRoutes } from './routes/saved-searches.js';
import { dashboardRoutes } from './routes/dashboards.js';
import { agentRoutes } from './routes/agent.js';
import { mcpRoutes } from '../mcp/route.js';
import { ingestContext } from '../ingest/common/context.js';
import { nativeRoutes } from '../ingest/native/route.js';
import { elasticsearchRoutes } from '../ingest/elasticsearch/route.js';
import { splunkHecRoutes } from '../ingest/splunk-hec/route.js';
import { lokiRoutes } from '../ingest/loki/route.js';
import { otlpRoutes } from '../ingest/otlp/route.js';
import { registerCrossSiteGuard } from './cross-site.js';
import { redirectBrowsersToUi, uiRoutes } from './ui.js';
import { answerClientError } from './client-error.js';
import { useJsonBodies } from './json-body.js';
import { readTlsFiles } from './tls.js';
import { useZodSchemas } from '../http-kit/schema/compiler.js';
import { recordRoutes } from './schema/openapi.js';
import { openApiRoutes } from './routes/openapi.js';

/**
 * Builds the HTTP edge: one Fastify instance with svc's error mapping, version header and routes.
 * Tests drive it with `app.inject`; main.ts listens on it.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const requestTimeout = deps.config.requestTimeoutSecs * 1000;
  // Node enforces requestTimeout only when given to its constructor too (Fastify sets it afterwards),
  // and checks every 30 s by default; a shorter setting is checked more often
  const serverOptions = { requestTimeout, connectionsCheckingInterval: Math.min(30_000, requestTimeout / 2) };
  const app = Fastify({
    loggerInstance: deps.log,
    bodyLimit: deps.config.maxBodyBytes,
    // Fastify's default is no limit: a client trickling a body would hold its socket forever
    requestTimeout,
    // with SVC_TLS_*, Fastify builds an https server from `https` alone: it takes the http options too
    ...(deps.config.tls ? { https: { ...serverOptions, ...readTlsFiles(deps.config.tls) } } : { http: serverOptions }),
    // per-request log lines would cost more than an ingest batch; failures are logged by the error handler
    logController: new LogController({ disableRequestLogging: true }),
    // X-Forwarded-For/-Proto/-Host are believed only from these (request.ip, .protocol, .host):
    // anyone else could claim any address and dodge login throttling or forge the audit trail
    trustProxy: deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false,
    requestIdHeader: false,
    genReqId: () => Math.random().toString(36).slice(2, 12),
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;
  app.decorate('deps', deps);
  useZodSchemas(app);
  const routes = recordRoutes(app);
  useJsonBodies(app, deps.config.maxBodyBytes);
  redirectBrowsersToUi(app);
  registerCrossSiteGuard(app, deps.config.publicOrigin);
  registerAuthHook(app, deps.auth);
  registerAuditTrail(app);

  const hsts = deps.config.hstsMaxAgeSecs > 0 ? `max-age=${deps.config.hstsMaxAgeSecs}` : undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Svc-Version', VERSION);
    // browsers ignore HSTS over plain HTTP (RFC 6797 8.1), so it goes on HTTPS answers only
    if (hsts && request.protocol === 'https') reply.header('Strict-Transport-Security', hsts);
    return payload;
  });

  app.setErrorHandler((err, request, reply) => {
    const svcErr = toSvcError(err);
    if (svcErr.kind === 'internal')
      request.log.error({ err, reqId: request.id, path: request.url.split('?')[0] }, 'request failed');
    return sendError(reply, svcErr, request);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new SvcError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), request),
  );

  await app.register(versionRoutes);
  await app.register(openApiRoutes, { routes });
  await app.register(authRoutes);
  await app.register(samlRoutes);
  await app.register(adminApiKeyRoutes);
  await app.register(adminIngestTokenRoutes);
  await app.register(adminEnvRoutes);
  await app.register(adminUserRoutes);
  await app.register(adminSettingsRoutes);
  await app.register(adminGcRoutes);
  await app.register(adminDeleteRoutes);
  await app.register(adminNodeRoutes);
  await app.register(adminLookupRoutes);
  await app.register(nativeRoutes, { ctx: ingestContext(deps, 'native') });
  // compatibility ingest: each protocol answers auth errors in its own shape (routes are 'public')
  const compat = {
    elasticsearch: elasticsearchRoutes,
    splunk_hec: splunkHecRoutes,
    loki: lokiRoutes,
    otlp: otlpRoutes,
  };
  for (const [protocol, plugin] of Object.entries(compat))
    await app.register(plugin, { ctx: ingestContext(deps, protocol) });
  await app.register(searchRoutes);
  await app.register(catalogRoutes);
  await app.register(languageRoutes);
  await app.register(contextRoutes);
  await app.register(exportRoutes);
  await app.register(monitorRoutes);
  await app.register(savedSearchRoutes);
  await app.register(dashboardRoutes);
  await app.register(agentRoutes);
  await app.register(mcpRoutes);
  await app.register(uiRoutes, { dir: deps.config.uiDir });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
}
