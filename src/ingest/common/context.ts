import type { Logger } from 'pino';
import type { IngestPrincipal } from '../../auth/principal.js';
import { resolveIngestTarget } from '../../auth/rbac.js';
import type { AuthService } from '../../auth/service.js';
import type { Clock } from '../../clock/clock.js';
import type { Config } from '../../config/load.js';
import type { ControlReader } from '../../control/types.js';
import type { SelfLog } from '../../selflog/types.js';
import { SvcError } from '../../errors/svc-error.js';
import { DEFAULT_INDEX } from '../../events/event.js';
import { batchSize, type Writer, type WriteBatch } from '../../events/writer.js';
import type { EventLimits } from '../../events/limits.js';
import type { DecodeRunner } from './decode-pool.js';
import { timeContext, type TimeContext } from '../../events/timestamp.js';
import type { IngestMeter, IngestMetrics } from '../../metrics/ingest.js';
import type { EnvIngestLimiter, IngestCharge, ThrottleOptions } from './env-limits.js';

/**
 * What every ingest adapter needs, handed to it (a route's Fastify plugin, the syslog listener) so
 * the adapters can be driven in tests with any Writer. Built by `ingestContext` below.
 */
export interface IngestContext {
  writer: Writer;
  /**
   * Authenticates a raw ingest token (`svi_…`). Throws SvcError missing_credentials when undefined,
   * invalid/expired/disabled_credentials when not a live ingest token.
   */
  authenticate(token: string | undefined): IngestPrincipal | Promise<IngestPrincipal>;
  /** Does the environment exist? Ingest into a missing one is refused with unknown_environment (requireEnv). */
  envExists(name: string): boolean;
  clock: Clock;
  /** Bound on a request body, compressed and decompressed (SVC_MAX_BODY_BYTES). */
  maxBodyBytes: number;
  /** IANA zone for timestamps that carry none, SVC_TIMEZONE. */
  timezone: string;
  /** Size, field count and time limits of every event (events/limits.ts). */
  limits: EventLimits;
  /** svc's own log, for what a listener must report without a client to answer (syslog_frames). */
  selflog?: Pick<SelfLog, 'service'>;
  log?: Logger;
  /** Where large bodies of the protocols that offer a decode kind are decoded; unset = on the event loop. */
  decoder?: DecodeRunner;
  /** This protocol's counters (metrics/ingest.ts): `submit` counts stored events, the edge refused requests; unset = none. */
  meter?: IngestMeter;
  /**
   * The env's ingest limits (common/env-limits.ts): resolves when the charge may be written, waiting
   * up to `maxWaitMs`; rejects rate_limited (retryAfterSecs) beyond. Unset: no limits.
   */
  throttle?: (charge: IngestCharge, opts: ThrottleOptions) => Promise<void>;
  /** Throws rate_limited when the env is so far over its limit that nothing of it could pass within `maxWaitMs`. */
  precheck?: (env: string, maxWaitMs: number) => void;
  /** Native ingest: waits its turn while the env is past its limit (common/env-limits.ts waitTurn); call the answer once charged. */
  waitTurn?: (env: string, maxWaitMs: number) => Promise<() => void>;
}

/** What ingestContext needs from the subsystems (the server's AppDeps has it all). */
export interface IngestDeps {
  writer: Writer;
  auth: Pick<AuthService, 'authenticateIngestToken'>;
  control: Pick<ControlReader, 'env'>;
  selflog: Pick<SelfLog, 'service'>;
  clock: Clock;
  config: Pick<Readonly<Config>, 'maxBodyBytes' | 'timezone' | 'eventLimits'>;
  log?: Logger;
  decoder?: DecodeRunner;
  metrics?: { ingest: IngestMetrics };
  /** One per server, shared by every protocol: an env's rate is the sum over all of them. */
  ingestLimiter?: EnvIngestLimiter;
}

/**
 * The context of one ingest protocol; `protocol` names it in the self-log's refused tokens, and in
 * the metrics unless `meterAs` names it there (syslog, whose refused token has always said "native").
 */
export function ingestContext(deps: IngestDeps, protocol: string, meterAs = protocol): IngestContext {
  return {
    writer: deps.writer,
    authenticate(token) {
      if (token === undefined) throw new SvcError('missing_credentials', 'missing ingest token');
      try {
        return deps.auth.authenticateIngestToken(token);
      } catch (e) {
        // these adapters answer auth errors in their protocol's shape, outside the generic auth hook,
        // so they record refused tokens here: never the secret, at most its last four characters
        if (e instanceof SvcError) {
          deps.selflog.service('credential_rejected', {
            reason: e.code,
            credential: 'ingest_token',
            protocol,
            last_four: token.slice(-4),
          });
        }
        throw e;
      }
    },
    envExists: (name) => deps.control.env(name) !== undefined,
    clock: deps.clock,
    maxBodyBytes: deps.config.maxBodyBytes,
    timezone: deps.config.timezone,
    limits: deps.config.eventLimits,
    selflog: deps.selflog,
    log: deps.log,
    decoder: deps.decoder,
    meter: deps.metrics?.ingest.meter(meterAs),
    throttle: deps.ingestLimiter && ((charge, opts) => deps.ingestLimiter!.throttle(charge, opts)),
    precheck: deps.ingestLimiter && ((env, maxWaitMs) => deps.ingestLimiter!.precheck(env, maxWaitMs)),
    waitTurn: deps.ingestLimiter && ((env, maxWaitMs) => deps.ingestLimiter!.waitTurn(env, maxWaitMs)),
  };
}

export interface Target {
  env: string;
  index: string;
}

/**
 * Resolves where events of one request go: the token's pin wins; `requestedIndex` (the index an
 * event or request names, each protocol in its own way: `_index`, HEC `index`, the Loki label,
 * OTLP `svc.index`) chooses the index only when the token pins none, and is ignored (not refused)
 * when it does, as the README says. A requested index follows the one name rule
 * (control/names.ts). Results are memoised per index because a batch repeats them.
 */
export class TargetResolver {
  private readonly cache = new Map<string, Target | SvcError>();

  constructor(
    private readonly ctx: Pick<IngestContext, 'envExists'>,
    readonly principal: IngestPrincipal,
  ) {}

  /** Throws SvcError access_denied / reserved_name / unknown_environment. */
  resolve(requestedIndex?: string): Target {
    const key = requestedIndex ?? '';
    let hit = this.cache.get(key);
    if (hit === undefined) {
      hit = this.compute(requestedIndex);
      this.cache.set(key, hit);
    }
    if (hit instanceof SvcError) throw hit;
    return hit;
  }

  private compute(requestedIndex: string | undefined): Target | SvcError {
    try {
      const t = resolveIngestTarget(
        this.principal,
        { index: this.principal.pin.index ? undefined : requestedIndex },
        DEFAULT_INDEX,
      );
      requireEnv(this.ctx, t.env);
      return t;
    } catch (e) {
      if (e instanceof SvcError) return e;
      throw e;
    }
  }
}

/** Throws unknown_environment unless `env` exists (it may have been deleted since the token was made). */
export function requireEnv(ctx: Pick<IngestContext, 'envExists'>, env: string): void {
  if (!ctx.envExists(env)) throw new SvcError('unknown_environment', `unknown environment: "${env}"`);
}

/** Authenticates and prepares the target resolver of one request. */
export async function authorize(ctx: IngestContext, token: string | undefined): Promise<TargetResolver> {
  const principal = await ctx.authenticate(token);
  return new TargetResolver(ctx, principal);
}

/**
 * The one way an adapter stores a request's events: the env's ingest limit first (waiting up to
 * `maxWaitMs`, then rate_limited; `gate` replaces that check), then the writer; once durable, the
 * batch is counted for `from.env` with the request's body bytes (decompressed).
 */
export async function submit(
  ctx: IngestContext,
  batch: WriteBatch,
  from: { env: string; bytes: number },
  opts: { wait: boolean; maxWaitMs: number; gate?: () => Promise<void>; charged?: () => void },
): Promise<void> {
  const events = batchSize(batch);
  if (events === 0) return;
  const throttle = ctx.throttle;
  const charge = throttle && (() => throttle({ ...from, events }, { maxWaitMs: opts.maxWaitMs }));
  const gate = opts.gate ?? charge;
  // `charged` (a waitTurn's): the next request of the env may go on once this one took its share
  const gated = gate && opts.charged ? () => gate().finally(opts.charged) : gate;
  await ctx.writer.write(batch, { wait: opts.wait, gate: gated });
  ctx.meter?.stored(from.env, events, from.bytes);
}

/**
 * submit without waiting: an env over its ingest limit throws rate_limited, a full queue
 * queue_full (the edge says "retry later" for both).
 */
export function forward(ctx: IngestContext, batch: WriteBatch, from: { env: string; bytes: number }): Promise<void> {
  return submit(ctx, batch, from, { wait: false, maxWaitMs: 0 });
}

/** Current time in epoch microseconds. */
export function nowUs(ctx: IngestContext): number {
  return ctx.clock.now() * 1000;
}

/** Zone and "now" for the timestamps of one request. */
export function timeCtx(ctx: IngestContext): TimeContext {
  return timeContext(ctx.timezone, ctx.clock.now(), ctx.limits.maxFutureSecs);
}
