import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { SearchService } from '../query/types.js';
import type { SavedSearchReader } from './run-panel.js';
import { PanelRunner } from './runner.js';
import { DashboardService } from './service.js';
import { seedSvclogsDashboard } from './svclogs-dashboard.js';

/** Answers kept at most (docs/dashboards.md, "Cache"): entries, bytes in all, bytes of one answer. */
const CACHE_LIMITS = { entries: 500, bytes: 32 * 1024 * 1024, entryBytes: 2 * 1024 * 1024 };

/**
 * The dashboards service over the control plane, the search service and the saved searches (read
 * as each caller, for saved-search panels); seeds the first start's dashboard.
 */
export async function openDashboards(o: {
  control: ControlStore;
  search: SearchService;
  clock: Clock;
  savedSearches: SavedSearchReader;
}): Promise<DashboardService> {
  await seedSvclogsDashboard(o.control, o.clock.now());
  const runner = new PanelRunner(
    o.search,
    () => o.control.envs().map((e) => e.name),
    CACHE_LIMITS,
    () => o.clock.now(),
  );
  return new DashboardService(o.control, o.clock, runner, o.savedSearches);
}
