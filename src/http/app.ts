import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { SvcError } from '../errors/svc-error.js';
import { VERSION } from '../version.js';
import { sendError, toSvcError } from './errors.js';
import type { AppDeps } from './deps.js';
import { versionRoutes } from './routes/version.js';

/**
 * Builds the HTTP edge: one Fastify instance with svc's error mapping, version header and routes.
 * Tests drive it with `app.inject`; main.ts listens on it.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.maxBodyBytes,
    // per-request log lines would cost more than an ingest batch; failures are logged by the error handler
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    requestIdHeader: false,
    genReqId: () => Math.random().toString(36).slice(2, 12),
  });
  app.decorate('deps', deps);

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Svc-Version', VERSION);
    return payload;
  });

  app.setErrorHandler((err, request, reply) => {
    const svcErr = toSvcError(err);
    if (svcErr.kind === 'internal') request.log.error({ err, reqId: request.id, url: request.url }, 'request failed');
    return sendError(reply, svcErr, request);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new SvcError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), request),
  );

  await app.register(versionRoutes);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
  }
  interface FastifyContextConfig {
    /**
     * Who may call a route; the auth hook enforces it before the handler runs.
     * public: anyone; session: any logged-in user or standard key; standard / admin: API scope;
     * mcp: the /mcp rules; ingest: ingest tokens only.
     */
    access?: 'public' | 'authenticated' | 'standard' | 'admin' | 'mcp' | 'ingest';
  }
}
