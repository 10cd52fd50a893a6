import { collectDefaultMetrics, Registry } from 'prom-client';
import { IngestMetrics } from './ingest.js';
import { LlmMetrics } from './llm.js';
import { MonitorMetrics } from './monitors.js';
import { SearchMetrics } from './search.js';
import { watchState, type StateSource } from './state.js';
import { StorageMetrics } from './storage.js';

/**
 * svc's metrics (docs/metrics.md, decision 0025): one registry per server, never prom-client's
 * global one, so servers started in one process (tests) count apart. The subsystems get the part
 * they report to, as a small observer interface; the HTTP edge writes `registry` out.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly ingest: IngestMetrics;
  readonly storage: StorageMetrics;
  readonly search: SearchMetrics;
  readonly monitors: MonitorMetrics;
  readonly llm: LlmMetrics;
  /** Registers the gauges read at each scrape; call once, when the subsystems they read are open. */
  watch(src: StateSource): void;
}

/**
 * Builds the registry and its metrics. `runtime`: also prom-client's process and Node.js metrics
 * (`process_*`, `nodejs_*`), which sample the event loop and watch GC: only when something scrapes.
 */
export function createMetrics(opts: { runtime: boolean }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (opts.runtime) runtimeMetrics(registry);
  return {
    registry,
    ingest: new IngestMetrics(registers),
    storage: new StorageMetrics(registers),
    search: new SearchMetrics(registers),
    monitors: new MonitorMetrics(registers),
    llm: new LlmMetrics(registers),
    watch: (src) => watchState(registers, src),
  };
}

/**
 * prom-client's default metrics but three: `nodejs_active_{handles,requests,resources}_total` are
 * gauges named like counters, which `promtool check metrics` refuses (and a `rate()` over them
 * would be wrong); `nodejs_active_handles{type}` and its siblings, kept, sum to the same numbers.
 */
function runtimeMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    registry.removeSingleMetric(name);
}
