import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Clock } from '../clock/clock.js';
import type { Writer } from '../events/writer.js';
import { configWarnings } from './config-warnings.js';
import { createSelfLog } from './selflog.js';
import type { SelfLog } from './types.js';

export type { SelfLog, SelfLogStats, McpCallRecord, ServiceEventName, ServiceEventDetails } from './types.js';
export { NULL_SELFLOG, SVCLOGS_INDEX, SVCMCP_INDEX } from './types.js';
export { redact, redactString } from './redact.js';

/**
 * Opens the self-log on the storage writer and records the configuration warnings.
 * server.ts records `start` once listening, and `stop` before closing it (see README.md).
 */
export function openSelfLog(opts: {
  config: Readonly<Config>;
  writer: Writer;
  clock: Clock;
  log: Logger;
  node: string;
}): SelfLog {
  const selflog = createSelfLog({ writer: opts.writer, clock: opts.clock, log: opts.log, node: opts.node });
  for (const w of configWarnings(opts.config)) {
    opts.log.warn({ setting: w.setting }, w.message);
    selflog.service('config_warning', { setting: w.setting, message: w.message });
  }
  return selflog;
}
