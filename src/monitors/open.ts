import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { Config } from '../config/load.js';
import type { ControlStore } from '../control/store.js';
import type { SearchService } from '../query/types.js';
import type { SelfLog } from '../selflog/types.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import { Lease } from '../storage/shared/lease.js';
import type { LlmProvider } from '../llm/provider.js';
import type { OutboundClient } from '../outbound/client.js';
import type { MonitorObserver } from '../metrics/monitors.js';
import { RunLimiter } from './run-limit.js';
import { MonitorScheduler } from './scheduler.js';
import { MonitorService } from './service.js';
import { MonitorStates, stateBlob } from './state.js';

export interface MonitorsOptions {
  config: Readonly<Config>;
  control: ControlStore;
  search: SearchService;
  selflog: SelfLog;
  clock: Clock;
  log: Logger;
  /** SVC_STORE: the run state lives there and one node at a time (the lease holder) runs monitors. */
  store?: ObjectStore;
  nodeId: string;
  baseUrl: () => string;
  llm: LlmProvider;
  /** The guarded client webhooks go through. */
  outbound: OutboundClient;
  /** Told of every run (metrics/monitors.ts). */
  observer?: MonitorObserver;
}

/** How often due monitors are looked for; how long the monitors lease lasts, and how often it is renewed. */
const TICK_MS = 1000;
const LEASE_TTL_MS = 30_000;
const LEASE_EVERY_MS = 10_000;

/** Loads the run state and builds the service; `scheduler.start()` begins running monitors. */
export async function openMonitors(
  o: MonitorsOptions,
): Promise<{ service: MonitorService; scheduler: MonitorScheduler }> {
  const states = new MonitorStates(stateBlob(o.config.dataDir, o.store));
  if ((await states.load()) === 'damaged')
    o.log.error('the monitors run state was damaged; monitors start over from their next scheduled time');
  const deps = {
    search: o.search,
    control: o.control,
    states,
    selflog: o.selflog,
    clock: o.clock,
    log: o.log,
    baseUrl: o.baseUrl,
    delivery: o.config.monitorWebhook,
    outbound: o.outbound,
    llm: o.llm,
    redactFields: o.config.llm?.redactFields ?? [],
    observer: o.observer,
  };
  const lease = o.store ? new Lease(o.store, 'leases/monitors.json', o.nodeId, LEASE_TTL_MS) : undefined;
  const scheduler = new MonitorScheduler(deps, () => o.control.doc.monitors, {
    tickMs: TICK_MS,
    lease,
    leaseEveryMs: LEASE_EVERY_MS,
  });
  return {
    service: new MonitorService(o.control, deps, scheduler, new RunLimiter(o.clock, o.config.monitorRunsPerMinute)),
    scheduler,
  };
}
