import type { Allowlists, Scope } from './access-types.js';
import type { EnvRecord, Settings } from './types.js';

/**
 * The control-plane document as it is stored (encrypted) on disk. Secrets appear only as HMACs,
 * passwords only as salted hashes. Times are RFC 3339 strings.
 */
export interface ControlDoc {
  format: 'svc-control';
  /** Incremented by every write; a node reloads when the stored version differs from its own. */
  version: number;
  updatedAt: string;
  users: UserRecord[];
  apiKeys: ApiKeyRecord[];
  ingestTokens: IngestTokenRecord[];
  envs: EnvRecord[];
  settings: Settings;
  /** Scheduled searches with a condition and destinations (src/monitors/); their run state lives apart. */
  monitors: MonitorRecord[];
  /** Saved searches (src/saved-searches/, docs/saved-searches.md); absent in older documents. */
  savedSearches?: SavedSearchRecord[];
  /** CSV tables for the `lookup` pipe (src/lookups/, docs/lookups.md); absent in older documents. */
  lookups?: LookupRecord[];
  /** Grids of panels run as their viewer (src/dashboards/, docs/dashboards.md); absent in older documents. */
  dashboards?: DashboardRecord[];
  /** Sessions ended by logout before their expiry (JWT ids); pruned once expired. */
  revokedSessions: { jti: string; expiresAt: string }[];
  /** Last use of long-lived sessions, for the idle timeout (auth/session-activity.ts); absent in older documents. */
  sessionsSeen?: { jti: string; seenAt: string; expiresAt: string }[];
  /** SAML state every node must share (src/auth/saml/state-store.ts); entries are pruned once expired. */
  saml: SamlState;
  /** What every node sharing this control plane must agree on, checked at start (auth/jwt-secret.ts). */
  cluster?: { jwtFingerprint: string };
}

export interface SamlState {
  /** Assertion ids already used to log in, kept until their NotOnOrAfter: a replay fails on every node. */
  assertions: { id: string; expiresAt: string }[];
}

export type Role = 'admin' | 'user';

export interface UserRecord {
  id: string;
  username: string;
  /** `scrypt$…` or `pbkdf2-sha256$…` (see auth/passwords.ts). */
  passwordHash: string;
  role: Role;
  allow: Allowlists;
  /** For single sign-on: an assertion may name the user by email (compared case-insensitively). */
  email?: string;
  /** A disabled user cannot log in, by password or SAML, and their sessions end. */
  disabled?: boolean;
  /** Bumped to revoke every session of the user at once (password change, admin reset). */
  sessionEpoch: number;
  createdAt: string;
  updatedAt: string;
}

/** What every long-lived credential record holds: never the secret, only its HMAC and last four. */
export interface CredentialRecord {
  id: string;
  name: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  disabled: boolean;
  /** HMAC-SHA256 of the whole secret under the server's secret key, hex. */
  secretHmac: string;
  lastFour: string;
}

export interface ApiKeyRecord extends CredentialRecord {
  /**
   * The user the key belongs to: the admin who created it, or the owner of the key that created
   * it. The key acts only while that user exists and is enabled, and an Admin API key only while
   * they are an admin (auth/api-keys.ts ownerState). null: the creator recorded by name only
   * (documents before owners were kept) no longer existed when the owner was looked up; such a
   * key is refused (control/migrate.ts).
   */
  ownerId: string | null;
  purpose: string;
  scopes: Scope[];
  allow: Allowlists;
  /** null: never expires. */
  expiresAt: string | null;
}

export interface IngestTokenRecord extends CredentialRecord {
  env: string;
  /** Pinned index; undefined: the request's index (or the default) is used. */
  index?: string;
}

/** A monitor as stored (docs/decisions/0017-monitors.md): durations as written (`5m`), checked when saved. */
export interface MonitorRecord {
  id: string;
  name: string;
  query: string;
  env: string;
  index?: string;
  every: string;
  window: string;
  /**
   * A threshold on the result (`count > 10`, `p95_ms >= 500`: a result column, an operator, a
   * number), or a sentence the LLM judges over at most `maxRows` result rows (an AI monitor).
   */
  condition: { threshold: string } | { ai: string; maxRows?: number };
  /** The result columns that name a group; absent: the `by` fields of the query's last `stats`. */
  groupBy?: string[];
  cooldown: string;
  destinations: MonitorDestination[];
  enabled: boolean;
  /** Who made it: the monitor runs with their access, as they have it at each run. */
  owner: { kind: 'user' | 'api_key'; id: string; name: string };
  createdAt: string;
  updatedAt: string;
}

/** A chart a saved search is shown as (the web UI draws it; svc stores the choice). */
export const CHART_TYPES = ['line', 'area', 'bar', 'column', 'pie', 'single_value'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

/** How a saved search's results are shown: the event list, the table, or a chart of the table. */
export type SavedView = { type: 'events' } | { type: 'table' } | { type: 'chart'; chart: ChartType; stacked?: boolean };

/**
 * A saved search (docs/decisions/0023-saved-searches.md): what the search page had, kept by its owner,
 * private or shared read-only. It runs as whoever runs it, never as its owner.
 */
export interface SavedSearchRecord {
  id: string;
  name: string;
  description: string;
  query: string;
  /** An env name, or `*`: every env the one who runs it may read. */
  env: string;
  index?: string;
  /** As written: relative (`-24h`, `now`, `-1d@d`) or absolute RFC 3339; resolved at each run. */
  range: { from: string; to: string };
  view: SavedView;
  owner: { kind: 'user' | 'api_key'; id: string; name: string };
  shared: boolean;
  /** Bumped by every change of the fields above (not by runs): an edit names the version it read. */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Last run (REST or MCP), by anyone it is visible to; null: never run. */
  lastRunAt: string | null;
  /** Last created, changed or run: what the list sorts by. */
  lastUsedAt: string;
}

/**
 * A lookup table an admin uploaded (docs/lookups.md). The bytes live beside the control plane:
 * `lookups/<name>/<id>.csv` and `.parquet` in the data dir, and in the shared store with SVC_STORE.
 */
export interface LookupRecord {
  name: string;
  /** Names this version's files; a new one at every upload, so a replaced table is never half-read. */
  id: string;
  /** The header row, in order. */
  columns: string[];
  rows: number;
  /** The CSV's size as uploaded. */
  bytes: number;
  updatedAt: string;
  updatedBy: string;
}

/** How often a dashboard reloads its panels; also how long their answers are cached (`off`: 10 s). */
export type DashboardRefresh = 'off' | '10s' | '1m' | '5m';

export const PANEL_TYPES = ['timeseries', 'single', 'table', 'bar', 'pie', 'events', 'histogram'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];

/** A panel's own query over an env (`*`: every env the viewer may read) and an optional index. */
export type InlineSource = { query: string; env: string; index?: string };
/** A saved search's query, env and index, read as the viewer at each run (docs/dashboards.md). */
export type SavedSearchSource = { savedSearchId: string };
/** Where a panel's rows come from: exactly one kind; code narrows with `'query' in source`. */
export type PanelSource = InlineSource | SavedSearchSource;

/** A threshold of a single-value panel: at `value` and above, the number shows in `color`. */
export interface PanelThreshold {
  value: number;
  color: string;
}

/** How a panel draws; each key is read by one panel type (checked when saved). */
export interface PanelOptions {
  /** timeseries */
  style?: 'line' | 'area' | 'stacked-bar';
  /** single: colours by value, and whether to show the change against the previous period. */
  thresholds?: PanelThreshold[];
  trend?: boolean;
}

/** A panel on the dashboard's 24-column grid. */
export interface DashboardPanel {
  /** Unique within its dashboard; carried over by export and import. */
  id: string;
  title: string;
  type: PanelType;
  source: PanelSource;
  options?: PanelOptions;
  grid: { x: number; y: number; w: number; h: number };
}

/** A `$name$` a dashboard's queries use, with where its values come from. */
export interface DashboardVariable {
  name: string;
  label?: string;
  kind: 'list' | 'query' | 'text';
  /** kind list: the values offered. */
  values?: string[];
  /** kind query: the first column of this query's table gives the values. */
  query?: string;
  env?: string;
  index?: string;
  /** The value used when a run names none (a list when `multi`). */
  default?: string | string[];
  multi?: boolean;
}

/**
 * A dashboard as stored (docs/decisions/0024-dashboards.md). `version` starts at 1 and grows by one
 * at every change: an update names the version it read, so a concurrent edit is told, not lost.
 */
export interface DashboardRecord {
  id: string;
  title: string;
  description: string;
  owner: { kind: 'user' | 'api_key'; id: string; name: string };
  /** Visible, read-only, to everyone who may search; its owner and admins change it. */
  shared: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Relative (`-24h`, `now`) or absolute (RFC 3339); resolved at each load. */
  time: { from: string; to: string };
  refresh: DashboardRefresh;
  variables: DashboardVariable[];
  panels: DashboardPanel[];
}

/** A webhook the monitor posts to: svc's JSON, or a Slack-style `{text}` message. */
export interface MonitorDestination {
  webhook: string;
  format: 'json' | 'slack';
}

export function emptyDoc(now: string): ControlDoc {
  return {
    format: 'svc-control',
    version: 0,
    updatedAt: now,
    users: [],
    apiKeys: [],
    ingestTokens: [],
    envs: [],
    settings: {},
    monitors: [],
    revokedSessions: [],
    saml: { assertions: [] },
  };
}
