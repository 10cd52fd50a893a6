import type { FastifyInstance } from 'fastify';

/** How often connections that became idle during a stop are closed. */
const SWEEP_MS = 100;

/**
 * Stops the HTTP edge within `graceMs`: no new connections, requests in flight finish, and each
 * keep-alive connection is closed as soon as it is idle. Fastify closes only the connections idle
 * at the moment close() starts; one whose request finished a moment later stayed open for its
 * keep-alive timeout (72 s), and the stop with it. What is still open after `graceMs` (a long
 * export, a slow client) is cut.
 */
export async function closeHttp(app: FastifyInstance, graceMs: number): Promise<void> {
  const server = app.server;
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
