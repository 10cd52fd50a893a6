/**
 * Records of the control plane (docs/decisions/0005-control-plane-one-document.md). The control plane is one
 * JSON document; these are its parts as the rest of svc reads them. Secrets never appear here: only their
 * HMACs.
 */
export interface EnvRecord {
  name: string;
  /** Per-environment retention override in days; undefined: the global default applies. */
  retentionDays?: number;
  /** Events per second this env may ingest on each node (token bucket, burst 1 s); undefined: no limit (docs/limits.md). */
  ingestEventsPerSec?: number;
  /** Body bytes per second (after decompression) this env may ingest on each node; undefined: no limit. */
  ingestBytesPerSec?: number;
  /** Searches one user or key may run at once over this env, on each node; undefined: only SVC_MAX_SEARCHES_PER_USER. */
  maxSearchesPerUser?: number;
  createdAt: string;
}

/** The per-environment limits an admin sets (Admin → Environments, PATCH /api/admin/envs/:name). */
export const ENV_LIMIT_FIELDS = ['ingestEventsPerSec', 'ingestBytesPerSec', 'maxSearchesPerUser'] as const;
export type EnvLimitField = (typeof ENV_LIMIT_FIELDS)[number];

export interface Settings {
  /** Admin → General retention default in days; SVC_RETENTION_DEFAULT_DAYS wins when set. */
  retentionDefaultDays?: number;
  /** Admin → General: days a new API key lasts when its create names no expiry; unset: it never expires. */
  apiKeyExpiryDefaultDays?: number;
  /** Admin → General: the longest an Admin API key may last, in days (a create asking longer, or never, is 400); unset: no maximum. */
  adminKeyMaxDays?: number;
  /** Admin → General: the id of the shared dashboard `/ui/` opens (docs/dashboards.md); unset: the search page. */
  homeDashboard?: string;
  /** Admin → General single sign-on; each SVC_SAML_* setting wins over its field here. */
  saml?: StoredSamlSettings;
}

/** SAML settings as an admin saves them (validated at save: src/auth/saml/settings.ts). */
export interface StoredSamlSettings {
  /** The IdP's metadata: an http(s) URL to fetch it from, or the XML itself. */
  idpMetadata?: string;
  idpSsoUrl?: string;
  /** The IdP's signing certificate, PEM. */
  idpCert?: string;
  spEntityId?: string;
  /** `nameid` or an attribute name. */
  match?: string;
  clockSkewSecs?: number;
  idpInitiated?: boolean;
}

/**
 * Read access to environments and settings, for storage (retention), ingest (unknown environment)
 * and search (env lists). Cheap, synchronous and always current: reads the in-memory document.
 */
export interface ControlReader {
  env(name: string): EnvRecord | undefined;
  envs(): EnvRecord[];
  settings(): Settings;
}
