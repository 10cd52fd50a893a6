import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../config/load.js';
import { SvcError } from '../errors/svc-error.js';
import { sendError, toSvcError } from '../http-kit/errors.js';

export interface MetricsListener {
  /** `http://host:port` as bound (port 0 resolved). */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format on a listener of its own (SVC_METRICS_LISTEN), with
 * no authentication, as Prometheus scrapes by default: the address is the access control, so the
 * operator binds it to loopback or a monitoring network (docs/decisions/0025-metrics-own-listener.md).
 * Nothing else is served there; the main listener serves no /metrics.
 */
export async function startMetricsListener(
  registry: Registry,
  addr: ListenAddress,
  log: Logger,
): Promise<MetricsListener> {
  // a line per scrape (every few seconds) would only be noise: failures are logged by the error handler
  const app = Fastify({
    loggerInstance: log,
    logController: new LogController({ disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
  app.get('/metrics', async (_req, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new SvcError('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`), request),
  );
  app.setErrorHandler((err, request, reply) => {
    const e = toSvcError(err);
    if (e.kind === 'internal') request.log.error({ err }, 'metrics scrape failed');
    return sendError(reply, e, request);
  });
  await app.listen({ host: addr.host, port: addr.port });
  const a = app.server.address();
  const port = typeof a === 'object' && a ? a.port : addr.port;
  const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}
