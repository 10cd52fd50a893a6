import type { FieldValue } from '../events/event.js';

/** The self-log indexes of the reserved `_system` environment (SYSTEM_ENV in control/envs.ts). */
export const SVCLOGS_INDEX = '_svclogs';
export const SVCMCP_INDEX = '_svcmcp';

export type SelfLogLevel = 'info' | 'warn' | 'error';

/** Loose extra detail: flattened into fields; undefined and null are left out. */
export type Detail = Record<string, FieldValue | null | undefined>;

/**
 * The service events svc records in `_system/_svclogs`, with the detail each carries.
 * Field names are snake_case so `stats count by reason` reads naturally.
 */
export interface ServiceEventDetails {
  /** The process is serving. */
  start: { version: string; listen: string; node?: string; data_dir?: string } & Detail;
  /** The process is shutting down (SIGTERM, SIGINT, close()). */
  stop: { reason?: string; uptime_secs?: number } & Detail;
  /** A setting is accepted but questionable (e.g. encryption off, LLM URL without model). */
  config_warning: { setting: string; message: string } & Detail;
  /**
   * A credential was refused. `reason` is the error code answered (invalid_credentials,
   * expired_credentials, disabled_credentials, insufficient_scope, ...). Never the secret: at most
   * its id or last four characters.
   */
  credential_rejected: {
    reason: string;
    credential: 'api_key' | 'ingest_token' | 'session' | 'password' | 'none';
    /** The HTTP path, for credentials the generic auth hook refused. */
    path?: string;
    /** The ingest protocol, for tokens a compatibility endpoint refused in its own shape. */
    protocol?: string;
    method?: string;
    key_id?: string;
    key_name?: string;
    last_four?: string;
    user?: string;
    remote_address?: string;
  } & Detail;
  /** A retention sweep ran (timer or POST /api/admin/gc). */
  retention_sweep: { forced: boolean; deleted_blocks: number; deleted_events?: number; took_ms?: number } & Detail;
  /**
   * A delete by query (POST /api/admin/delete) started (`status=running`, on the node asked) and
   * ended on a node (`done`, `failed`, `cancelled`): who asked, what, and how many events went on
   * that node (docs/delete.md).
   */
  delete_job: {
    job_id: string;
    status: string;
    asked_by: string;
    principal_kind?: string;
    target_env: string;
    target_index?: string;
    from: string;
    to: string;
    query: string;
    deleted_events?: number;
    blocks_rewritten?: number;
    error?: string;
  } & Detail;
  /** SVC_ADMIN_RESET=1 reset the admin password and revoked sessions. */
  admin_reset: { user: string; sessions_revoked?: boolean } & Detail;
  /**
   * Storage could not do its work: a WAL write refused (disk full), a seal or merge failing, a
   * damaged block set aside at start, the shared store not answering. The same problem is told at
   * most once a minute; `repeated` counts those held back since. `resolved`: the problem is over
   * (the shared store answers again).
   */
  storage_problem: { kind: string; message: string; path?: string; repeated?: number; resolved?: boolean } & Detail;
  /** A search was stopped for its time limit (query_timeout) or memory (query_too_large). */
  search_stopped: { reason: string; query: string; principal: string; took_ms: number } & Detail;
  /**
   * A monitor ran (or a run was missed or cut short). `outcome`: `ok` (the condition was evaluated:
   * `triggered` says how it came out), `error` (the run could not complete: `error` says why; never
   * "not triggered"), `missed` (svc was not running at `missed_runs` scheduled times), `interrupted`
   * (svc stopped during the run of `slot`).
   */
  monitor_run: {
    monitor_id: string;
    monitor: string;
    outcome: 'ok' | 'error' | 'missed' | 'interrupted';
    trigger: 'schedule' | 'manual';
    slot?: string;
    duration_ms?: number;
    rows?: number;
    triggered?: boolean;
    groups_firing?: number;
    error?: string;
    missed_runs?: number;
  } & Detail;
  /** A group of a monitor began firing (or fired again after its cooldown: `repeat`). */
  monitor_fired: {
    monitor_id: string;
    monitor: string;
    group: string;
    value: number;
    threshold: string;
    repeat?: boolean;
  } & Detail;
  /** A firing group no longer meets the condition. */
  monitor_resolved: { monitor_id: string; monitor: string; group: string; value?: number } & Detail;
  /** A destination did not take a notification after every retry. */
  monitor_destination_failed: {
    monitor_id: string;
    monitor: string;
    destination: string;
    attempts: number;
    status?: number;
    error: string;
  } & Detail;
  /** The agent or a monitor could not reach or use the LLM provider. */
  llm_error: { provider: string; message: string; status?: number; model?: string } & Detail;
  /** SVC_TLS_CERT/SVC_TLS_KEY changed on disk and the new pair now serves new connections. */
  tls_reloaded: { cert: string } & Detail;
  /** Syslog messages cut to the frame limit (64 KiB) or dropped since the last report (at most one a minute). */
  syslog_frames: { oversized: number; dropped: number; max_frame_bytes: number } & Detail;
  /**
   * The kernel dropped syslog UDP datagrams (its receive buffer was full): `dropped` since the last
   * report, `total` since the listener started, the listener's address and its effective receive
   * buffer (the kernel's figure; Linux counts twice the bytes granted).
   */
  syslog_dropped: { dropped: number; total: number; listen: string; recv_buffer_bytes: number } & Detail;
  /**
   * The audit trail (http/audit.ts, docs/audit.md): a search, export, agent question, MCP tool call
   * or change, with who (`user`/`user_id` or `key_name`/`key_id`), `client_ip`, `action`, `route`,
   * `target`, the `query`, `env_name`, `index_name`, `from`, `to`, `rows`, `status`, `error`, `duration_ms`.
   */
  audit: { action: string } & Detail;
}

/** `saml_*` events (saml_login_failed, saml_audience_mismatch, ...) carry free detail. */
export type SamlEventName = `saml_${string}`;
export type ServiceEventName = keyof ServiceEventDetails | SamlEventName;
export type DetailFor<E extends ServiceEventName> = E extends keyof ServiceEventDetails
  ? ServiceEventDetails[E]
  : Detail;

export type McpOutcome = 'ok' | 'error' | 'rejected';

/** One MCP tools/call, as recorded in `_system/_svcmcp`. */
export interface McpCallRecord {
  /** The tool asked for (also when it was unknown or hidden). */
  tool: string;
  /** Key name (or user name for a session) and id: who made the call. */
  principalName: string;
  principalId: string;
  principalKind: 'api_key' | 'user';
  /** The call's arguments; secrets are redacted by the self-log before writing. */
  args: unknown;
  /** ok: answered; error: the tool answered an error (bad query, access denied); rejected: JSON-RPC error (hidden/unknown tool, bad arguments). */
  outcome: McpOutcome;
  errorCode?: string;
  errorMessage?: string;
  durationMs: number;
  /** Events, rows, buckets or list entries returned. */
  resultCount: number;
}

export interface SelfLogStats {
  /** Records waiting in the self-log buffer. */
  queued: number;
  /** Records the writer accepted. */
  written: number;
  /** Records lost: buffer full, writer refused, or after close. */
  dropped: number;
}

/**
 * svc's own events into `_system`. Called from any subsystem, concurrently, on hot paths:
 * every method returns at once, never throws and never waits for storage. Records are buffered
 * (bounded) and written in the background with `wait: false`; when the buffer is full they are
 * dropped and counted (see stats()).
 */
export interface SelfLog {
  /** A service event into `_svclogs`. `level` defaults per event (warn for rejections and saml_*). */
  service<E extends ServiceEventName>(event: E, detail: DetailFor<E>, level?: SelfLogLevel): void;
  /** One MCP call into `_svcmcp`. */
  mcpCall(rec: McpCallRecord): void;
  stats(): SelfLogStats;
  /** Resolves when everything buffered so far was handed to the writer (or dropped). Never rejects. */
  flush(): Promise<void>;
  /** Flushes (bounded wait) and stops accepting records. Never rejects. */
  close(): Promise<void>;
}

/** A self-log that records nothing: for tests and tools that run without storage. */
export const NULL_SELFLOG: SelfLog = Object.freeze({
  service() {},
  mcpCall() {},
  stats: () => ({ queued: 0, written: 0, dropped: 0 }),
  flush: async () => {},
  close: async () => {},
});
