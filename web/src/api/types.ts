/** Wire shapes of svc's REST API as the UI reads them (docs/admin-api.md, docs/search-api.md). */

// the search answers' shapes come from the server's own definitions (a type-only import, erased
// from the bundle), so the UI cannot drift from what svc sends
import type { FieldsResult } from '../../../src/query/types';
export type {
  EventJson as LogEvent,
  SearchMeta,
  SearchResult,
  HistogramResult,
  FieldsResult,
  ContextResult,
} from '../../../src/query/types';

export type FieldInfo = FieldsResult['fields'][number];

export interface CatalogIndex {
  name: string;
  events: number;
  earliest: string | null;
  latest: string | null;
}

export interface CatalogEnv extends CatalogIndex {
  indexes: CatalogIndex[];
}

export interface LanguageItem {
  name: string;
  syntax: string;
  description: string;
  example?: string;
}

export interface Language {
  pipes: LanguageItem[];
  aggregations: LanguageItem[];
  functions: LanguageItem[];
  keywords: string[];
  coreFields: string[];
  /** Fields svc finds in messages of known log formats at search time. */
  extractedFields?: { name: string; formats: string[] }[];
}

export type Scope = 'standard' | 'admin' | 'mcp';

export interface Allowlists {
  envs: string[];
  indexes: string[];
  tools: string[];
}

export interface Me {
  kind: 'user' | 'api_key';
  id: string;
  name: string;
  scopes: Scope[];
  allow: Allowlists;
  role?: 'admin' | 'user';
}

export interface ApiKey {
  id: string;
  name: string;
  purpose: string | null;
  scopes: Scope[];
  allow: Allowlists;
  expiresAt: string | null;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  state: 'enabled' | 'disabled' | 'expired';
  /** The user the key belongs to, as they are now (docs/access.md). */
  ownerId: string | null;
  ownerState: 'active' | 'removed' | 'disabled' | 'not_admin';
  lastFour: string;
  secret?: string;
}

export interface IngestToken {
  id: string;
  name: string;
  env: string;
  index: string | null;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  state: 'enabled' | 'disabled';
  lastFour: string;
  secret?: string;
}

export interface Env {
  name: string;
  retentionDays?: number | null;
  /** Per-node limits (docs/limits.md); absent: none. */
  ingestEventsPerSec?: number;
  ingestBytesPerSec?: number;
  maxSearchesPerUser?: number;
  createdAt: string;
}

export interface User {
  id: string;
  username: string;
  email: string | null;
  role: 'admin' | 'user';
  allow: Allowlists;
  state: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
}

export type { StoredSamlSettings as SamlSettings } from '../../../src/control/types';
import type { StoredSamlSettings } from '../../../src/control/types';

export interface SamlStatus {
  configured: boolean;
  usable: boolean;
  problem?: string;
  acsUrl?: string;
  spEntityId?: string;
  /** Fields the environment sets (SVC_SAML_*): they win over what is saved here. */
  fromEnv: (keyof StoredSamlSettings)[];
  /** Their values as the variables give them (for a certificate: its file), and the variables' names. */
  envValues: Partial<Record<keyof StoredSamlSettings, string>>;
  envVars: Partial<Record<keyof StoredSamlSettings, string>>;
}

export interface Settings {
  settings: {
    retentionDefaultDays?: number | null;
    apiKeyExpiryDefaultDays?: number | null;
    adminKeyMaxDays?: number | null;
    homeDashboard?: string | null;
    saml?: StoredSamlSettings;
  };
  effective: {
    retentionDefaultDays: number | null;
    retentionDefaultSource: 'SVC_RETENTION_DEFAULT_DAYS' | 'settings' | 'none';
  };
  sso: SamlStatus;
}

export interface SweepReport {
  deletedBlocks: number;
  deletedEvents: number;
  blocks: { env: string; index: string; day: string; block: string; events: number; maxTime: string }[];
  tookMs: number;
}

export interface AuthOptions {
  saml: { enabled: boolean; loginUrl?: string };
}

// the monitors API's shapes, from the server's own definitions (type-only, erased at build)
export type {
  MonitorView as Monitor,
  GroupVerdict as MonitorVerdict,
  MonitorPreview,
  HistoryEntry as MonitorHistoryEntry,
} from '../../../src/monitors/types';

// the saved searches API's shapes (docs/saved-searches.md), from the server's own definitions
export type {
  SavedSearchView as SavedSearch,
  SavedSearchInput,
  SavedSearchPatch,
} from '../../../src/saved-searches/types';
export type { SavedView } from '../../../src/control/records';
