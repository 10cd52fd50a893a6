#!/usr/bin/env node
import pino from 'pino';
import { ConfigError, loadConfig } from './config/load.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`svc: configuration error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const log = pino({ level: config.logLevel });
  const server = await startServer(config, log);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'svc stopping');
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((e: unknown) => {
  console.error(`svc: cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
