import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, resolve, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSchema } from './schema.js';
import { carriedFolder } from '../packaged/carried.js';
import { parseAllowList, type AllowList } from '../outbound/allow-list.js';
import { isSecretKey } from '../errors/secret-names.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** The typed, frozen configuration every subsystem receives. Built once at start by loadConfig. */
export interface Config {
  listen: ListenAddress;
  dataDir: string;
  /** SVC_STORE: a shared directory or an S3 bucket several nodes share; undefined: one node, all local. */
  store: StoreSetting | undefined;
  s3Endpoint: string | undefined;
  s3Region: string;
  s3PathStyle: boolean;
  cacheMaxBytes: number;
  nodeId: string | undefined;
  controlKeyPath: string;
  controlEncryption: boolean;
  jwtSecretPath: string;
  sessionTtlHours: number;
  /** SVC_SESSION_IDLE_SECS: a session unused this long ends; 0: never for idleness. */
  sessionIdleSecs: number;
  /** SVC_TRUSTED_PROXIES as Fastify's trustProxy takes it; empty: forwarded headers are ignored. */
  trustedProxies: string[];
  /** SVC_TLS_CERT and SVC_TLS_KEY (absolute paths) when svc serves HTTPS itself. */
  tls: { certPath: string; keyPath: string } | undefined;
  /** SVC_HSTS_MAX_AGE_SECS; 0: no Strict-Transport-Security header. */
  hstsMaxAgeSecs: number;
  adminPassword: string | undefined;
  adminReset: boolean;
  fips: boolean;
  blockQueueCap: number;
  /** SVC_HEALTH_WRITER_STALL_SECS */
  healthWriterStallSecs: number;
  /** SVC_SHUTDOWN_TIMEOUT_SECS */
  shutdownTimeoutSecs: number;
  blockSyncSecs: number;
  maxBodyBytes: number;
  /** SVC_MAX_EVENT_BYTES, SVC_MAX_EVENT_FIELDS, SVC_MAX_FUTURE_DRIFT_SECS (events/limits.ts EventLimits). */
  eventLimits: { maxEventBytes: number; maxFields: number; maxFutureSecs: number };
  /** SVC_LOOKUP_MAX_BYTES: the largest lookup CSV accepted. */
  lookupMaxBytes: number;
  requestTimeoutSecs: number;
  searchTimeoutSecs: number;
  /** Admission of searches (query/admission.ts): SVC_MAX_CONCURRENT_SEARCHES, SVC_MAX_SEARCHES_PER_USER, SVC_SEARCH_QUEUE_WAIT_SECS. */
  searchAdmission: { maxRunning: number; maxPerPrincipal: number; maxWaitSecs: number };
  /** Webhook delivery of monitors (SVC_MONITOR_WEBHOOK_*). */
  monitorWebhook: { attempts: number; backoffMs: number; timeoutMs: number };
  /** SVC_MONITOR_RUNS_PER_MINUTE: manual runs per user or key. */
  monitorRunsPerMinute: number;
  /** SVC_OUTBOUND_ALLOW: destinations outbound calls may reach although their address is not public. */
  outboundAllow: AllowList;
  retentionDefaultDays: number | undefined;
  retentionSweepSecs: number;
  timezone: string;
  duckdbMemoryLimit: string;
  duckdbThreads: number;
  ingestWorkers: number;
  /** Decoded bodies of at least this many events become parts (storage/parts/); 0 = never. */
  partMinEvents: number;
  /** SVC_METRICS_LISTEN: where GET /metrics is served, unauthenticated; undefined = nowhere. */
  metricsListen: ListenAddress | undefined;
  /** SVC_OTLP_GRPC_LISTEN: the OTLP/gRPC listener's address; undefined: off. */
  otlpGrpcListen: ListenAddress | undefined;
  syslogTcp: ListenAddress | undefined;
  syslogUdp: ListenAddress | undefined;
  syslogRelp: ListenAddress | undefined;
  syslogToken: string | undefined;
  /** SO_RCVBUF asked for the syslog UDP socket (bytes). */
  syslogUdpRecvBuffer: number;
  llm:
    | {
        url: string;
        model: string | undefined;
        apiKey: string | undefined;
        timeoutMs: number;
        maxRetries: number;
        dailyTokens: number | undefined;
        redactFields: string[];
      }
    | undefined;
  /** SVC_PUBLIC_URL without a trailing slash, when set. */
  publicUrl: string | undefined;
  /** Origin (scheme://host[:port]) of SVC_PUBLIC_URL, when set. */
  publicOrigin: string | undefined;
  /** The SVC_SAML_* settings that are set; each wins over the same setting in Admin → General. */
  saml: SamlEnvSettings;
  /** Directory of the built web UI (index.html and assets/). */
  uiDir: string;
  logLevel: string;
  testClockOffsetSecs: number;
  testHoldWriter: boolean;
  /** SVC_TEST_WEAK_PASSWORD_HASHES: cheap password hashes (tests only; a warning at start says so). */
  testWeakPasswordHashes: boolean;
  /** SVC_TEST_SEGMENT_AGE_MS: a WAL segment's age at which it is sealed (tests only); undefined: the engine's 5 s. */
  testSegmentAgeMs: number | undefined;
}

export type StoreSetting = { kind: 'dir'; path: string } | { kind: 's3'; bucket: string; prefix: string };

/** `s3://bucket[/prefix]` or a directory path. */
export function parseStoreSetting(value: string): StoreSetting {
  if (/^s3:\/\//i.test(value)) {
    const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/i.exec(value);
    if (!m) throw new ConfigError(`SVC_STORE: cannot parse "${value}" (want s3://bucket/prefix)`);
    const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
    return { kind: 's3', bucket: m[1], prefix };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    throw new ConfigError(`SVC_STORE: "${value}" is neither a directory nor s3://bucket/prefix`);
  return { kind: 'dir', path: resolve(value) };
}

/** proxy-addr's named ranges, which Fastify's trustProxy accepts beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `10.0.0.5, 10.1.0.0/16, loopback` → its entries, each checked here so a typo stops start-up with
 * the setting's name (Fastify would throw later, or trust nothing).
 */
export function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.has(entry)) continue;
    const [addr, bits, ...rest] = entry.split('/');
    const family = isIP(addr);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(
        `SVC_TRUSTED_PROXIES: cannot parse "${entry}" (want an IP address, a CIDR like 10.0.0.0/8, or loopback, linklocal, uniquelocal)`,
      );
    }
  }
  return entries;
}

function tlsPaths(cert: string | undefined, key: string | undefined): Config['tls'] {
  if (!cert && !key) return undefined;
  if (!cert || !key)
    throw new ConfigError(`${cert ? 'SVC_TLS_KEY' : 'SVC_TLS_CERT'}: HTTPS needs both SVC_TLS_CERT and SVC_TLS_KEY`);
  return { certPath: resolve(cert), keyPath: resolve(key) };
}

export interface SamlEnvSettings {
  idpMetadata?: string;
  idpSsoUrl?: string;
  idpCertPath?: string;
  spEntityId?: string;
  match?: string;
  clockSkewSecs?: number;
  idpInitiated?: boolean;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses `host:port`, `:port` or `port`; a bare port listens on loopback (secure by default). */
export function parseListen(value: string, name: string): ListenAddress {
  const m = /^(?:\[?([^\]]*?)\]?:)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`${name}: cannot parse listen address "${value}" (want host:port)`);
  return { host: m[1] || '127.0.0.1', port };
}

function allowList(text: string | undefined): AllowList {
  try {
    return parseAllowList(text);
  } catch (e) {
    throw new ConfigError(`SVC_OUTBOUND_ALLOW: ${(e as Error).message}`);
  }
}

/** The directory holding svc's package.json, from wherever this file runs (src/ with tsx, dist/ compiled). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The only reader of process.env for the server (config/client.ts reads the command line's few).
 * `flags`: SVC_* values given as command-line flags (`svc serve --data-dir`), which win over the
 * environment and go through the same schema. Throws ConfigError naming the bad setting.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string> = {}): Readonly<Config> {
  const svcVars = { ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('SVC_'))), ...flags };
  const parsed = envSchema.safeParse(svcVars);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue.path[0]);
    // a secret's value (SVC_ADMIN_PASSWORD, SVC_LLM_API_KEY) is never printed back
    throw new ConfigError(
      isSecretKey(key) ? `${key}: ${issue.message}` : `${key}: ${issue.message} (got "${svcVars[key] ?? ''}")`,
    );
  }
  const e = parsed.data;
  const dataDir = resolve(e.SVC_DATA_DIR);
  const cfg: Config = {
    listen: parseListen(e.SVC_LISTEN, 'SVC_LISTEN'),
    dataDir,
    store: e.SVC_STORE ? parseStoreSetting(e.SVC_STORE) : undefined,
    s3Endpoint: e.SVC_S3_ENDPOINT,
    s3Region: e.SVC_S3_REGION,
    s3PathStyle: e.SVC_S3_PATH_STYLE ?? e.SVC_S3_ENDPOINT !== undefined,
    cacheMaxBytes: Math.floor(e.SVC_CACHE_MAX_GB * 1024 ** 3),
    nodeId: e.SVC_NODE_ID,
    controlKeyPath: resolve(e.SVC_CONTROL_KEY_PATH ?? join(dataDir, 'control.key')),
    controlEncryption: e.SVC_CONTROL_ENCRYPTION === 'on',
    jwtSecretPath: resolve(e.SVC_JWT_SECRET_PATH ?? join(dataDir, 'jwt.secret')),
    sessionTtlHours: e.SVC_SESSION_TTL_HOURS,
    sessionIdleSecs: e.SVC_SESSION_IDLE_SECS,
    trustedProxies: e.SVC_TRUSTED_PROXIES ? parseTrustedProxies(e.SVC_TRUSTED_PROXIES) : [],
    tls: tlsPaths(e.SVC_TLS_CERT, e.SVC_TLS_KEY),
    hstsMaxAgeSecs: e.SVC_HSTS_MAX_AGE_SECS,
    adminPassword: e.SVC_ADMIN_PASSWORD,
    adminReset: e.SVC_ADMIN_RESET,
    fips: e.SVC_FIPS,
    blockQueueCap: e.SVC_BLOCK_QUEUE_CAP,
    healthWriterStallSecs: e.SVC_HEALTH_WRITER_STALL_SECS,
    shutdownTimeoutSecs: e.SVC_SHUTDOWN_TIMEOUT_SECS,
    blockSyncSecs: e.SVC_BLOCK_SYNC_SECS,
    maxBodyBytes: e.SVC_MAX_BODY_BYTES,
    eventLimits: {
      maxEventBytes: e.SVC_MAX_EVENT_BYTES,
      maxFields: e.SVC_MAX_EVENT_FIELDS,
      maxFutureSecs: e.SVC_MAX_FUTURE_DRIFT_SECS,
    },
    lookupMaxBytes: e.SVC_LOOKUP_MAX_BYTES,
    requestTimeoutSecs: e.SVC_REQUEST_TIMEOUT_SECS,
    searchTimeoutSecs: e.SVC_SEARCH_TIMEOUT_SECS,
    searchAdmission: {
      maxRunning: e.SVC_MAX_CONCURRENT_SEARCHES ?? Math.max(2, availableParallelism()),
      maxPerPrincipal: e.SVC_MAX_SEARCHES_PER_USER,
      maxWaitSecs: e.SVC_SEARCH_QUEUE_WAIT_SECS,
    },
    monitorWebhook: {
      attempts: e.SVC_MONITOR_WEBHOOK_ATTEMPTS,
      backoffMs: e.SVC_MONITOR_WEBHOOK_BACKOFF_MS,
      timeoutMs: e.SVC_MONITOR_WEBHOOK_TIMEOUT_SECS * 1000,
    },
    monitorRunsPerMinute: e.SVC_MONITOR_RUNS_PER_MINUTE,
    outboundAllow: allowList(e.SVC_OUTBOUND_ALLOW),
    retentionDefaultDays: e.SVC_RETENTION_DEFAULT_DAYS,
    retentionSweepSecs: e.SVC_RETENTION_SWEEP_SECS,
    timezone: e.SVC_TIMEZONE,
    duckdbMemoryLimit: e.SVC_DUCKDB_MEMORY_LIMIT,
    duckdbThreads: e.SVC_DUCKDB_THREADS,
    ingestWorkers: e.SVC_INGEST_WORKERS ?? Math.min(4, availableParallelism()),
    partMinEvents: e.SVC_PART_MIN_EVENTS,
    metricsListen: e.SVC_METRICS_LISTEN ? parseListen(e.SVC_METRICS_LISTEN, 'SVC_METRICS_LISTEN') : undefined,
    otlpGrpcListen: e.SVC_OTLP_GRPC_LISTEN ? parseListen(e.SVC_OTLP_GRPC_LISTEN, 'SVC_OTLP_GRPC_LISTEN') : undefined,
    syslogTcp: e.SVC_SYSLOG_TCP ? parseListen(e.SVC_SYSLOG_TCP, 'SVC_SYSLOG_TCP') : undefined,
    syslogUdp: e.SVC_SYSLOG_UDP ? parseListen(e.SVC_SYSLOG_UDP, 'SVC_SYSLOG_UDP') : undefined,
    syslogRelp: e.SVC_SYSLOG_RELP ? parseListen(e.SVC_SYSLOG_RELP, 'SVC_SYSLOG_RELP') : undefined,
    syslogToken: e.SVC_SYSLOG_TOKEN,
    syslogUdpRecvBuffer: e.SVC_SYSLOG_UDP_RECV_BUFFER,
    llm: e.SVC_LLM_URL
      ? {
          url: e.SVC_LLM_URL,
          model: e.SVC_LLM_MODEL,
          apiKey: e.SVC_LLM_API_KEY,
          timeoutMs: e.SVC_LLM_TIMEOUT_SECS * 1000,
          maxRetries: e.SVC_LLM_MAX_RETRIES,
          dailyTokens: e.SVC_LLM_DAILY_TOKENS,
          redactFields: (e.SVC_LLM_REDACT_FIELDS ?? '')
            .split(',')
            .map((f) => f.trim())
            .filter((f) => f.length > 0),
        }
      : undefined,
    publicUrl: e.SVC_PUBLIC_URL?.replace(/\/+$/, ''),
    publicOrigin: e.SVC_PUBLIC_URL ? new URL(e.SVC_PUBLIC_URL).origin : undefined,
    saml: definedOnly({
      idpMetadata: e.SVC_SAML_IDP_METADATA,
      idpSsoUrl: e.SVC_SAML_IDP_SSO_URL,
      idpCertPath: e.SVC_SAML_IDP_CERT_PATH,
      spEntityId: e.SVC_SAML_SP_ENTITY_ID,
      match: e.SVC_SAML_MATCH,
      clockSkewSecs: e.SVC_SAML_CLOCK_SKEW_SECS,
      idpInitiated: e.SVC_SAML_IDP_INITIATED,
    }),
    // the single executable writes the UI it carries to its unpack folder (src/packaged/carried.ts)
    uiDir: resolve(e.SVC_UI_DIR ?? carriedFolder('ui') ?? join(packageRoot(), 'dist', 'web')),
    logLevel: e.SVC_LOG_LEVEL,
    testClockOffsetSecs: e.SVC_TEST_CLOCK_OFFSET_SECS,
    testHoldWriter: e.SVC_TEST_HOLD_WRITER,
    testWeakPasswordHashes: e.SVC_TEST_WEAK_PASSWORD_HASHES,
    testSegmentAgeMs: e.SVC_TEST_SEGMENT_AGE_MS,
  };
  return Object.freeze(cfg);
}
