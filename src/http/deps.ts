import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Clock } from '../clock/clock.js';

/**
 * Everything the HTTP edge needs from the subsystems, built by server.ts.
 * Each subsystem adds its service here as it lands.
 */
export interface AppDeps {
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
}
