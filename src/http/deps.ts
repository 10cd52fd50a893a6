import type { DeleteJobs } from '../deletes/service.js';
import type { Logger } from 'pino';
import type { Config } from '../config/load.js';
import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { AuthService } from '../auth/service.js';
import type { Writer } from '../events/writer.js';
import type { EventStore } from '../storage/types.js';
import type { StorageHandle } from '../storage/handle.js';
import type { HealthProblem } from '../storage/health.js';
import type { ClusterHandle } from '../storage/shared/types.js';
import type { SelfLog } from '../selflog/types.js';
import type { EventReader, SearchService } from '../query/types.js';
import type { DecodeRunner } from '../ingest/common/decode-pool.js';
import type { EnvIngestLimiter } from '../ingest/common/env-limits.js';
import type { SamlSso } from '../auth/saml/sso.js';
import type { MonitorService } from '../monitors/service.js';
import type { LlmProvider } from '../llm/provider.js';
import type { LookupService } from '../lookups/service.js';
import type { SavedSearchService } from '../saved-searches/service.js';
import type { DashboardService } from '../dashboards/service.js';
import type { Metrics } from '../metrics/registry.js';

/**
 * Everything the HTTP edge needs from the subsystems, built by server.ts.
 * Each subsystem adds its service here as it lands.
 */
export interface AppDeps {
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
  /** The control plane (a ControlReader for envs and settings). */
  control: ControlStore;
  /** Authentication, API keys, ingest tokens, users, envs. */
  auth: AuthService;
  /** The one door into storage for every ingest route. */
  writer: Writer;
  /** The storage read side the query layer compiles searches over. */
  store: EventStore;
  /** Retention sweep (POST /api/admin/gc), writer release for backpressure tests, flush. */
  storage: StorageHandle;
  /** What keeps storage from working fully now (GET /api/health, storage/health.ts); empty when all is well. */
  health: () => HealthProblem[];
  /** Several nodes on one store (SVC_STORE): health, GET /api/admin/nodes, retire. Unset when svc runs alone. */
  cluster?: ClusterHandle;
  /** svc's own events into _system (_svclogs, _svcmcp): never blocks, never throws (src/selflog/README.md). */
  selflog: SelfLog;
  /** Search for every caller: REST, MCP, UI; context and export for the UI (src/query/types.ts). */
  search: SearchService & EventReader;
  /** SAML single sign-on (configured() is false when no SAML setting is given). */
  sso: SamlSso;
  /** Scheduled searches with conditions and webhooks (src/monitors/). */
  monitors: MonitorService;
  /** Saved searches: kept in the control plane, run as the caller (src/saved-searches/). */
  savedSearches: SavedSearchService;
  /** The LLM provider (src/llm/); `configured` is false when SVC_LLM_URL is unset. */
  llm: LlmProvider;
  /** CSV tables for the `lookup` pipe: upload, list, download, delete (src/lookups/). */
  lookups: LookupService;
  /** Grids of panels run as their viewer, with a cache of answers (src/dashboards/). */
  dashboards: DashboardService;
  /** Delete by query: dry runs and jobs (src/deletes/, POST /api/admin/delete). */
  deletes: DeleteJobs;
  /** Decode workers for large native and `_bulk` bodies (SVC_INGEST_WORKERS); unset = decode inline. */
  decoder?: DecodeRunner;
  /** The counters every subsystem reports to, served by SVC_METRICS_LISTEN (src/metrics/). */
  metrics?: Metrics;
  /** Per-environment ingest limits, one for every protocol (docs/limits.md); unset = none. */
  ingestLimiter?: EnvIngestLimiter;
}
