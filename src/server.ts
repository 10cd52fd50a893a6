import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { offsetClock } from './clock/clock.js';
import { buildApp } from './http/app.js';
import type { AppDeps } from './http/deps.js';

export interface Server {
  app: FastifyInstance;
  deps: AppDeps;
  /** The address the HTTP server listens on (port resolved when 0 was asked). */
  url: string;
  close(): Promise<void>;
}

/**
 * Opens every subsystem in dependency order and starts listening; close() undoes it in reverse.
 * Order: data dir → control plane → auth → storage (WAL replay) → self-log → HTTP → listeners.
 */
export async function startServer(config: Readonly<Config>, log: Logger = pino({ level: config.logLevel })): Promise<Server> {
  mkdirSync(config.dataDir, { recursive: true });
  const clock = offsetClock(config.testClockOffsetSecs);
  /** Closed in reverse order of opening. */
  const closers: (() => Promise<void> | void)[] = [];

  // --- control plane and auth ---

  // --- storage ---

  // --- self-log ---

  const deps: AppDeps = { config, clock, log };
  const app = await buildApp(deps);
  await app.listen({ host: config.listen.host, port: config.listen.port });
  closers.push(() => app.close());

  // --- extra listeners (syslog) ---

  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.listen.port;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const url = `http://${host}:${port}`;
  log.info({ url, dataDir: config.dataDir }, 'svc listening');
  return {
    app,
    deps,
    url,
    async close() {
      for (const c of closers.reverse()) await c();
    },
  };
}
