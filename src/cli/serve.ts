import type { Command } from 'commander';
import { armStopDeadline } from './stop-deadline.js';

interface ServeOptions {
  dataDir?: string;
  listen?: string;
}

/** The flags of `svc serve`, as the SVC_* settings they set (config/schema.ts validates them). */
const FLAG_SETTINGS = { dataDir: ['SVC_DATA_DIR', '--data-dir'], listen: ['SVC_LISTEN', '--listen'] } as const;

/**
 * Starts the service (what `npm start` did before the command line): configuration from SVC_*
 * and the flags (which win), then startServer until SIGTERM/SIGINT. The server's modules are
 * loaded here, on demand, so that client commands never load DuckDB or Fastify.
 */
async function serve(opts: ServeOptions): Promise<void> {
  const { ConfigError, loadConfig } = await import('../config/load.js');
  const flags: Record<string, string> = {};
  for (const [k, [setting]] of Object.entries(FLAG_SETTINGS)) {
    const v = opts[k as keyof ServeOptions];
    if (v !== undefined) flags[setting] = v;
  }
  let config;
  try {
    config = loadConfig(process.env, flags);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    // name the flag when the bad value came from one
    const message = Object.values(FLAG_SETTINGS).reduce(
      (m, [setting, flag]) => (flags[setting] !== undefined ? m.replaceAll(setting, flag) : m),
      e.message,
    );
    console.error(`svc: configuration error: ${message}`);
    process.exit(2);
  }
  const { default: pino } = await import('pino');
  const { startServer } = await import('../server.js');
  const { humanLogDestination } = await import('./log-lines.js');
  // a terminal gets lines a person reads; a pipe or a file gets JSON, for the log shippers
  const log = pino(
    { level: config.logLevel },
    process.stdout.isTTY ? humanLogDestination(process.stdout) : pino.destination(1),
  );
  let server;
  try {
    server = await startServer(config, log);
  } catch (e) {
    console.error(`svc: cannot start: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'svc stopping');
    armStopDeadline(config.shutdownTimeoutSecs, log, () => server.closing() ?? 'nothing (exiting)');
    try {
      await server.close();
    } catch (err) {
      log.error({ err, closing: server.closing() }, 'svc could not stop cleanly');
      process.exit(1);
    }
    process.exit(0);
  };
  // a second signal while stopping ends the process at once (an operator pressing Ctrl+C again)
  const onSignal = (signal: string) => {
    if (!stopping) return void stop(signal);
    log.warn({ signal, closing: server.closing() }, 'second signal while stopping: exiting now');
    process.exit(1);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

export function registerServe(program: Command): void {
  program
    .command('serve', { isDefault: true })
    .description('start the service (the default command); every SVC_* variable applies, flags win')
    .option('--data-dir <dir>', 'data directory (SVC_DATA_DIR, default ./data)')
    .option('--listen <host:port>', 'address to listen on (SVC_LISTEN, default 127.0.0.1:7300)')
    .action((opts: ServeOptions) => serve(opts));
}
