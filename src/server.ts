import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/load.js';
import { offsetClock } from './clock/clock.js';
import { buildApp } from './http/app.js';
import { closeHttp } from './http/close.js';
import { ingestContext } from './ingest/common/context.js';
import { EnvIngestLimiter } from './ingest/common/env-limits.js';
import { startSyslog, type SyslogListeners } from './ingest/syslog/listener.js';
import { startOtlpGrpc, type OtlpGrpcListener } from './ingest/otlp-grpc/listener.js';
import type { AppDeps } from './http/deps.js';
import { openAccess } from './auth/open.js';
import { openObjectStore } from './shared-store/open.js';
import { StorageEngine } from './storage/engine.js';
import { StorageHealth } from './storage/health.js';
import { DataDirLock } from './storage/data-dir-lock.js';
import { createDataDir, makeNewFilesPrivate, openDirWarning } from './storage/file-modes.js';
import { DecodePool } from './ingest/common/decode-pool.js';
import { DECODE_WORKER } from './workers/paths.js';
import { searchAdmission } from './query/admission.js';
import { QueryService } from './query/service.js';
import { openSelfLog } from './selflog/index.js';
import { VERSION } from './version.js';
import { SamlSso } from './auth/saml/sso.js';
import { openMonitors } from './monitors/open.js';
import { LlmProvider } from './llm/provider.js';
import { OutboundClient } from './outbound/client.js';
import { openLookups } from './lookups/open.js';
import { openDashboards } from './dashboards/open.js';
import { lookupWriter } from './lookups/write-rows.js';
import { SavedSearchService } from './saved-searches/service.js';
import { DeleteJobs } from './deletes/service.js';
import { eventSinkOf } from './query/event-sink.js';
import { readTlsFiles, watchTlsFiles } from './http/tls.js';
import type { Server as TlsServer } from 'node:tls';
import { createMetrics } from './metrics/registry.js';
import { storageState } from './storage/usage.js';
import { startMetricsListener } from './http/metrics-listener.js';

export interface Server {
  app: FastifyInstance;
  deps: AppDeps;
  /** The address the HTTP server listens on (port resolved when 0 was asked). */
  url: string;
  /** The syslog listeners when SVC_SYSLOG_UDP / SVC_SYSLOG_TCP / SVC_SYSLOG_RELP are set (bound ports resolved). */
  syslog?: SyslogListeners;
  /** Where GET /metrics is served when SVC_METRICS_LISTEN is set (port resolved). */
  metricsUrl?: string;
  /** The OTLP/gRPC listener when SVC_OTLP_GRPC_LISTEN is set (bound port resolved). */
  otlpGrpc?: OtlpGrpcListener;
  close(): Promise<void>;
  /** The part close() is waiting for now (a stop that takes too long names it); undefined when not closing. */
  closing(): string | undefined;
}

/**
 * Opens every subsystem in dependency order and starts listening; close() undoes it in reverse.
 * Order: data dir and its lock → shared store → control plane → auth → storage (WAL replay) → self-log → HTTP → listeners.
 */
export async function startServer(
  config: Readonly<Config>,
  log: Logger = pino({ level: config.logLevel }),
): Promise<Server> {
  // a certificate that cannot be used stops start-up before anything is opened
  if (config.tls) readTlsFiles(config.tls);
  makeNewFilesPrivate();
  const dataDirWarning = openDirWarning(config.dataDir, createDataDir(config.dataDir));
  if (dataDirWarning) log.warn({ dataDir: config.dataDir }, dataDirWarning);
  // one svc per data dir, before anything reads or changes it (a second one would replay the WAL)
  const lock = DataDirLock.acquire(config.dataDir, (h) =>
    log.warn({ holder: h }, 'data dir lock left by a process that is gone: taken over'),
  );
  const clock = offsetClock(config.testClockOffsetSecs);
  // counted from the start whether or not anything scrapes; the runtime's own only when something can
  const metrics = createMetrics({ runtime: config.metricsListen !== undefined });
  /** Closed in reverse order of opening. */
  const closers: [string, () => Promise<void> | void][] = [['data-dir lock', () => lock.release()]];

  // --- the shared store (SVC_STORE), then the control plane and auth (in it when there is one) ---
  const objectStore = await openObjectStore(config);
  closers.push(['shared store', () => objectStore?.close?.()]);
  const access = await openAccess(config, clock, log, { store: objectStore });
  closers.push(['control plane', () => access.close()]);
  const { control, auth } = access;

  // --- storage (with SVC_STORE: blocks published to the shared store, the other nodes' read from it) ---
  const storage = await StorageEngine.open({
    config,
    control,
    clock,
    log,
    store: objectStore,
    observer: metrics.storage,
  });
  metrics.watch(storageState(storage, config.dataDir));
  closers.push(['storage', () => storage.close()]);

  // --- self-log ---
  const startedAt = Date.now();
  const selflog = openSelfLog({ config, writer: storage.writer, clock, log, node: storage.nodeId });
  if (dataDirWarning) selflog.service('config_warning', { setting: 'SVC_DATA_DIR', message: dataDirWarning });
  storage.onSweep((r, forced) =>
    selflog.service('retention_sweep', {
      forced,
      deleted_blocks: r.deletedBlocks,
      deleted_events: r.deletedEvents,
      took_ms: r.tookMs,
    }),
  );
  storage.onProblem((p) =>
    selflog.service('storage_problem', {
      kind: p.kind,
      message: p.message,
      path: p.path,
      repeated: p.repeated || undefined,
      resolved: p.resolved,
    }),
  );
  closers.push([
    'self-log',
    async () => {
      selflog.service('stop', { uptime_secs: Math.round((Date.now() - startedAt) / 1000) });
      await selflog.close();
    },
  ]);

  // --- outbound calls (webhooks, the LLM, SAML metadata): one guarded client (docs/outbound.md) ---
  const outbound = new OutboundClient(config.outboundAllow);

  // --- single sign-on (a wrong SVC_SAML_* setting stops start-up here, naming it) ---
  const sso = await SamlSso.open({
    config,
    control,
    auth,
    clock,
    log,
    outbound,
    binding: access.samlBinding,
    record: (event, detail) => selflog.service(event as `saml_${string}`, detail),
  });

  // --- decode workers (closed after HTTP: requests in flight may still be decoding) ---
  const decoder =
    config.ingestWorkers > 0
      ? new DecodePool(config.ingestWorkers, DECODE_WORKER, log, {
          parts: { dir: storage.partsDir, minEvents: config.partMinEvents },
        })
      : undefined;
  if (decoder) closers.push(['decode workers', () => decoder.close()]);

  // --- lookup tables (the copies at hand; the others fetched in the background) ---
  const lookups = await openLookups({ control, store: objectStore, dataDir: config.dataDir, clock, log });
  closers.push(['lookups', () => lookups.close()]);

  const search = new QueryService({
    store: storage,
    control,
    clock,
    lookups: lookups.catalog,
    lookupWriter: lookupWriter(lookups.service),
    eventSink: eventSinkOf(storage.writer, config.eventLimits, hostname()),
    timeoutMs: config.searchTimeoutSecs * 1000,
    // ingest is behind when closed WAL segments wait for their seal: searches then run one at a time
    admission: searchAdmission(config.searchAdmission, () => storage.stats().liveSegments > 2),
    observer: metrics.search,
    onStopped: (s) =>
      selflog.service('search_stopped', {
        reason: s.reason,
        query: s.query,
        principal: s.principal,
        took_ms: s.tookMs,
      }),
  });
  // --- monitors (run after listening: their links need the address) ---
  let baseUrl = config.publicUrl ?? '';
  const llm = new LlmProvider(config.llm, selflog, () => clock.now(), outbound, metrics.llm);
  const monitors = await openMonitors({
    config,
    control,
    search,
    selflog,
    clock,
    log,
    store: objectStore,
    nodeId: storage.nodeId,
    baseUrl: () => baseUrl,
    llm,
    outbound,
    observer: metrics.monitors,
  });
  closers.push(['monitors', () => monitors.scheduler.stop()]);
  /** Set once the listeners start (after HTTP); health reads it at each request. */
  let syslog: SyslogListeners | undefined;
  const health = new StorageHealth({
    dataDir: config.dataDir,
    problems: storage.problems,
    oldestWaitingSince: () => storage.writer.oldestWaitingSince(),
    stallMs: config.healthWriterStallSecs * 1000,
  });
  const savedSearches = new SavedSearchService(control, search, clock, log);
  // after storage (its jobs rewrite blocks) and before HTTP; closed before storage, resumed at start
  const deletes = new DeleteJobs({
    engine: storage,
    control,
    clock,
    log,
    selflog,
    dataDir: config.dataDir,
    store: objectStore,
    syncSecs: config.blockSyncSecs,
  });
  deletes.start();
  closers.push(['delete jobs', () => deletes.close()]);
  const deps: AppDeps = {
    config,
    clock,
    log,
    control,
    auth,
    writer: storage.writer,
    store: storage,
    storage,
    health: () => [...health.problems(), ...(syslog?.problems() ?? [])],
    cluster: storage.cluster,
    selflog,
    search,
    decoder,
    ingestLimiter: new EnvIngestLimiter(control, clock),
    sso,
    monitors: monitors.service,
    savedSearches,
    deletes,
    llm,
    lookups: lookups.service,
    dashboards: await openDashboards({ control, search, clock, savedSearches }),
    metrics,
  };
  const app = await buildApp(deps);
  // --- OTLP/gRPC (SVC_OTLP_GRPC_LISTEN): before HTTP, so both drain their calls in the same half of a stop ---
  const otlpGrpc = config.otlpGrpcListen
    ? await startOtlpGrpc(ingestContext(deps, 'otlp_grpc'), {
        listen: config.otlpGrpcListen,
        tls: config.tls ? readTlsFiles(config.tls) : undefined,
      })
    : undefined;
  try {
    await app.listen({ host: config.listen.host, port: config.listen.port });
  } catch (e) {
    await otlpGrpc?.close(0);
    throw e;
  }
  // half the stop's time for requests in flight: storage needs the rest to commit what they queued
  const requestsMs = (config.shutdownTimeoutSecs * 1000) / 2;
  closers.push([
    otlpGrpc ? 'HTTP and OTLP/gRPC' : 'HTTP',
    async () => void (await Promise.all([closeHttp(app, requestsMs), otlpGrpc?.close(requestsMs)])),
  ]);
  if (config.tls) {
    const stopWatching = watchTlsFiles(app.server as unknown as TlsServer, config.tls, log, (paths) =>
      selflog.service('tls_reloaded', { cert: paths.certPath }),
    );
    closers.push(['TLS file watch', stopWatching]);
    // the gRPC listener serves the same certificate, renewed with it
    if (otlpGrpc) closers.push(['OTLP/gRPC TLS file watch', watchTlsFiles(otlpGrpc, config.tls, log)]);
  }

  // --- extra listeners (syslog) ---
  if (config.syslogUdp || config.syslogTcp || config.syslogRelp) {
    // a refused SVC_SYSLOG_TOKEN is recorded as protocol "native", as it always was; metrics say "syslog"
    const listeners = await startSyslog(ingestContext(deps, 'native', 'syslog'), {
      udp: config.syslogUdp,
      tcp: config.syslogTcp,
      relp: config.syslogRelp,
      token: config.syslogToken,
      udpRecvBuffer: config.syslogUdpRecvBuffer,
    });
    syslog = listeners;
    closers.push(['syslog listeners', () => listeners.close()]);
  }

  // --- GET /metrics on its own listener (decision 0025) ---
  let metricsUrl: string | undefined;
  if (config.metricsListen) {
    const m = await startMetricsListener(metrics.registry, config.metricsListen, log);
    metricsUrl = m.url;
    closers.push(['metrics listener', () => m.close()]);
  }

  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.listen.port;
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const url = `${config.tls ? 'https' : 'http'}://${host}:${port}`;
  baseUrl = config.publicUrl ?? url;
  await monitors.scheduler.start();
  const grpcAt = otlpGrpc && config.otlpGrpcListen ? `${config.otlpGrpcListen.host}:${otlpGrpc.port}` : undefined;
  log.info({ url, otlpGrpc: grpcAt, dataDir: config.dataDir }, 'svc listening');
  selflog.service('start', { version: VERSION, listen: url, node: storage.nodeId, data_dir: config.dataDir });
  if (access.adminReset) selflog.service('admin_reset', { user: 'admin' });
  let closing: string | undefined;
  return {
    closing: () => closing,
    app,
    deps,
    url,
    syslog,
    metricsUrl,
    otlpGrpc,
    async close() {
      for (const [name, c] of closers.reverse()) {
        closing = name;
        await c();
      }
      closing = undefined;
    },
  };
}
