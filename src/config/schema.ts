import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'on', 'off', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'on' || v === 'yes');
const posInt = z.coerce.number().int().positive();
const optionalString = z.string().min(1).optional();

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every SVC_* setting, its default and its validation. The README's settings table mirrors this.
 * Paths left unset are derived from SVC_DATA_DIR in load.ts.
 */
export const envSchema = z.object({
  SVC_LISTEN: z.string().default('127.0.0.1:7300'),
  SVC_DATA_DIR: z.string().default('./data'),
  SVC_STORE: optionalString,
  SVC_S3_ENDPOINT: z.string().url().optional(),
  /** Region of the S3 bucket (AWS needs the right one; S3-compatible servers take any). */
  SVC_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Bucket in the URL path (http://host/bucket/key), as MinIO and Ceph want; off: virtual-hosted style (AWS). Default: on with SVC_S3_ENDPOINT. */
  SVC_S3_PATH_STYLE: bool.optional(),
  /** Other nodes' blocks are read through a local cache this large (GiB, LRU). */
  SVC_CACHE_MAX_GB: z.coerce.number().positive().max(100_000).default(10),
  SVC_NODE_ID: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only')
    .optional(),

  SVC_CONTROL_KEY_PATH: optionalString,
  SVC_CONTROL_ENCRYPTION: z.enum(['on', 'off']).default('on'),
  SVC_JWT_SECRET_PATH: optionalString,
  /** Longest a session lasts from its login; bounded at 30 days (a stolen cookie must not live for years). */
  SVC_SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(168),
  /** A session unused this long ends (checked by the server); 0: no idle timeout. At most 30 days. */
  SVC_SESSION_IDLE_SECS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(12 * 3600),
  SVC_ADMIN_PASSWORD: optionalString,
  SVC_ADMIN_RESET: bool.default('0'),
  SVC_FIPS: bool.default('0'),

  SVC_BLOCK_QUEUE_CAP: posInt.default(100_000),
  SVC_BLOCK_SYNC_SECS: posInt.default(10),
  /** A write waiting longer than this for its acknowledgement makes /api/health say `writer_stalled`. */
  SVC_HEALTH_WRITER_STALL_SECS: posInt.default(10),
  /** Longest a stop (SIGTERM, SIGINT) may take before svc logs what hung and exits non-zero. */
  SVC_SHUTDOWN_TIMEOUT_SECS: posInt.default(25),
  SVC_MAX_BODY_BYTES: posInt.default(64 * 1024 * 1024),
  /** Largest event (UTF-8 bytes of its message, field names and string values); longer values are cut (docs/ingest-limits.md). */
  // at most 2 MiB: JSON escaping grows text up to 6×, and a WAL line must stay under DuckDB's 16 MiB read_json object
  SVC_MAX_EVENT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 * 1024 * 1024)
    .default(1024 * 1024),
  /** Most fields an event may have; an event with more is refused. */
  SVC_MAX_EVENT_FIELDS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** How far past now an event time may be; a later one is replaced by the arrival time. */
  SVC_MAX_FUTURE_DRIFT_SECS: posInt.default(2 * 86_400),
  /** Largest CSV an admin may upload as a lookup table (PUT /api/admin/lookups/{name}). */
  SVC_LOOKUP_MAX_BYTES: posInt.default(32 * 1024 * 1024),
  /** Longest a client may take to send one whole request (headers and body); slow senders get 408. */
  SVC_REQUEST_TIMEOUT_SECS: posInt.default(120),
  SVC_RETENTION_DEFAULT_DAYS: posInt.optional(),
  SVC_RETENTION_SWEEP_SECS: posInt.default(3600),
  /** Zone of timestamps that carry none: UTC or an IANA name (checked through Intl at start). */
  SVC_TIMEZONE: z
    .string()
    .default('UTC')
    .refine(isTimeZone, 'unknown time zone (want UTC or an IANA name like Europe/Berlin)'),

  /** Longest a search, histogram or field summary may run before it is stopped (503 query_timeout). */
  SVC_SEARCH_TIMEOUT_SECS: posInt.default(60),
  /** Searches (of every kind: search, histogram, fields, context, export, MCP) running at once; default max(2, cores). */
  SVC_MAX_CONCURRENT_SEARCHES: z.coerce.number().int().min(1).max(1000).optional(),
  /** Searches one user or key may run at once (the UI fires search, histogram and fields together). */
  SVC_MAX_SEARCHES_PER_USER: z.coerce.number().int().min(1).max(1000).default(3),
  /** Longest a search waits for a slot before 429 too_many_searches. */
  SVC_SEARCH_QUEUE_WAIT_SECS: z.coerce.number().int().min(0).max(600).default(5),
  SVC_DUCKDB_MEMORY_LIMIT: z.string().default('1GB'),
  SVC_DUCKDB_THREADS: posInt.default(2),
  /** Worker threads that decode large native ingest bodies off the event loop; 0 = decode inline. Default: one per core, at most 4. */
  SVC_INGEST_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /** A body a decode worker decodes into at least this many events is written as parts, not through the WAL; 0 = never. */
  SVC_PART_MIN_EVENTS: z.coerce.number().int().min(0).default(8192),

  /** Listener of GET /metrics (Prometheus text format), without auth: off unless set (decision 0025). */
  SVC_METRICS_LISTEN: optionalString,
  /** OTLP logs over gRPC (host:port, e.g. 127.0.0.1:4317); unset: no gRPC listener. */
  SVC_OTLP_GRPC_LISTEN: optionalString,

  SVC_SYSLOG_TCP: optionalString,
  SVC_SYSLOG_UDP: optionalString,
  /** RELP listener (rsyslog omrelp): each message acknowledged once durable. */
  SVC_SYSLOG_RELP: optionalString,
  SVC_SYSLOG_TOKEN: optionalString,
  /** Receive buffer asked for the syslog UDP socket (bytes); the kernel caps it at net.core.rmem_max. */
  SVC_SYSLOG_UDP_RECV_BUFFER: z.coerce
    .number()
    .int()
    .min(4096)
    .max(1024 * 1024 * 1024)
    .default(8 * 1024 * 1024),

  SVC_LLM_URL: z.string().url().optional(),
  SVC_LLM_MODEL: optionalString,
  SVC_LLM_API_KEY: optionalString,
  /** Longest wait for one answer of the provider (each try). */
  SVC_LLM_TIMEOUT_SECS: z.coerce.number().int().min(1).max(600).default(60),
  /** Retries after a failed try (429, 5xx, timeouts, lost connections), with exponential backoff. */
  SVC_LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** Tokens the provider may spend per UTC day on this node; unset: no limit. */
  SVC_LLM_DAILY_TOKENS: z.coerce.number().int().min(1).optional(),
  /** Fields never sent to the provider (comma-separated names; the value is replaced by [redacted]). */
  SVC_LLM_REDACT_FIELDS: optionalString,

  /**
   * SAML login (docs/saml.md; docs/decisions/0016-saml-match-only.md): the IdP's metadata (file or http(s)
   * URL), or its SSO URL and signing certificate.
   */
  SVC_SAML_IDP_METADATA: optionalString,
  SVC_SAML_IDP_SSO_URL: z.string().url().optional(),
  SVC_SAML_IDP_CERT_PATH: optionalString,
  /** svc's entity id at the IdP (the Audience its assertions must name). */
  SVC_SAML_SP_ENTITY_ID: optionalString,
  /** How an assertion names its user: `nameid`, or the name of an attribute (e.g. `email`, `uid`). */
  SVC_SAML_MATCH: optionalString,
  SVC_SAML_CLOCK_SKEW_SECS: z.coerce.number().int().min(0).max(3600).optional(),
  /** Accept responses the IdP sends without svc asking (IdP-initiated login). */
  SVC_SAML_IDP_INITIATED: bool.optional(),

  /** Monitors: how many times a webhook is tried in all, the wait before the 2nd try (doubled after), the wait for an answer. */
  SVC_MONITOR_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  SVC_MONITOR_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  SVC_MONITOR_WEBHOOK_TIMEOUT_SECS: z.coerce.number().int().min(1).max(300).default(10),
  /** Manual runs (`POST /api/monitors/{id}/run`) one user or key may start per minute. */
  SVC_MONITOR_RUNS_PER_MINUTE: z.coerce.number().int().min(1).max(1000).default(10),
  /** Destinations svc may call although their address is not public: host names, `*.suffix`, addresses, CIDR ranges (docs/outbound.md). */
  SVC_OUTBOUND_ALLOW: optionalString,

  /** Reverse proxies whose X-Forwarded-For/-Proto/-Host are believed: comma-separated addresses, CIDRs or loopback/linklocal/uniquelocal. */
  SVC_TRUSTED_PROXIES: optionalString,
  /** PEM certificate (chain) and private key: svc serves HTTPS itself, reloading both when the files change. */
  SVC_TLS_CERT: optionalString,
  SVC_TLS_KEY: optionalString,
  /** Strict-Transport-Security max-age sent on HTTPS answers; 0 (default): no HSTS header. */
  SVC_HSTS_MAX_AGE_SECS: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 * 365 * 86_400)
    .default(0),

  /** The address people and IdPs use to reach svc (https://logs.example.com), when a proxy sits in front. */
  SVC_PUBLIC_URL: z.string().url().optional(),
  /** The built web UI (dist/web of the package by default). */
  SVC_UI_DIR: optionalString,

  SVC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Tests only: seconds added to the wall clock, so expiry can be exercised against a real process. */
  SVC_TEST_CLOCK_OFFSET_SECS: z.coerce.number().int().default(0),
  /** Tests only: hold the block writer so the queue fills (backpressure tests). */
  SVC_TEST_HOLD_WRITER: bool.default('0'),
  /** Tests only: cheap password hashes (the real cost is ~0.6 s of CPU per hash; see auth/passwords.ts). */
  SVC_TEST_WEAK_PASSWORD_HASHES: bool.default('0'),
  /** Tests only: close (and seal) a WAL segment once it is this many ms old instead of 5 s, so tests of several nodes see blocks sooner. */
  SVC_TEST_SEGMENT_AGE_MS: posInt.optional(),
});

export type RawEnv = z.infer<typeof envSchema>;
