import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { ObjectStore } from '../shared-store/object-store.js';
import { LookupReplica } from './replica.js';
import { LookupService } from './service.js';

export interface Lookups {
  /** The admin API's side. */
  service: LookupService;
  /** The query side: the tables as this node has them (QueryService's PlanDeps.lookups). */
  catalog: LookupReplica;
  close(): Promise<void>;
}

/** Opens the lookup tables after the control plane: the copies at hand serve at once, missing ones are fetched in the background. */
export async function openLookups(o: {
  control: ControlStore;
  store?: ObjectStore;
  dataDir: string;
  clock: Clock;
  log: Logger;
}): Promise<Lookups> {
  const catalog = new LookupReplica({ control: o.control, store: o.store, dataDir: o.dataDir, log: o.log });
  await catalog.start();
  return { service: new LookupService(o), catalog, close: () => catalog.close() };
}
