import { Counter, Histogram, type Registry } from 'prom-client';

/** The calls QueryService runs (query/service.ts): a closed list. */
export type SearchKind = 'search' | 'histogram' | 'fields' | 'context' | 'export';

/**
 * How a call ended: `refused` (no slot: 429 too_many_searches), `timeout` (SVC_SEARCH_TIMEOUT_SECS),
 * `cancelled` (the caller went away), `error` (anything else, a bad query included), `ok`.
 */
export type SearchOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'refused';

/** What the query service reports; called once per call, concurrently from any request. */
export interface SearchObserver {
  /** `seconds` it ran once it had a slot; undefined when it never got one (refused, or its caller left first). */
  finished(kind: SearchKind, outcome: SearchOutcome, seconds: number | undefined): void;
}

const SEARCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Search counts and durations. Labels are closed lists; never the query or who ran it. */
export class SearchMetrics implements SearchObserver {
  private readonly calls: Counter<'kind' | 'outcome'>;
  private readonly seconds: Histogram<'kind'>;

  constructor(registers: Registry[]) {
    this.calls = new Counter({
      name: 'svc_searches_total',
      help: 'Search calls (REST, UI, MCP, monitors, agent), by kind and outcome (ok, error, timeout, cancelled, refused).',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.seconds = new Histogram({
      name: 'svc_search_duration_seconds',
      help: 'Time a search call ran, from its slot to its answer (the wait for a slot left out), whatever its outcome; calls that never got a slot are left out.',
      labelNames: ['kind'],
      buckets: SEARCH_BUCKETS,
      registers,
    });
  }

  finished(kind: SearchKind, outcome: SearchOutcome, seconds: number | undefined): void {
    this.calls.inc({ kind, outcome });
    if (seconds !== undefined) this.seconds.observe({ kind }, seconds);
  }
}
