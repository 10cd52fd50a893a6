import type { Logger } from 'pino';
import type { Clock } from '../clock/clock.js';
import type { ControlDoc } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import { BatchedWrites, WritesBatched } from './batched-writes.js';

/** Most last-seen records kept in the control plane; past it the longest idle are dropped (they fall back to their login time). */
const MAX_STORED = 10_000;
/** The shared record of a session is rewritten once it lags this share of the idle timeout behind. */
const STORED_LAG_SHARE = 1 / 24;

export interface SessionUse {
  jti: string;
  /** Issued at and expiry, seconds since the epoch (JWT claims). */
  iat: number;
  exp: number;
}

/**
 * The idle timeout of sessions (SVC_SESSION_IDLE_SECS): a session whose last use is older than the
 * timeout ends with session_expired. Sessions are stateless JWTs, so the last use is kept here:
 * - in memory on this node, updated on every request (no write per request);
 * - in the control plane (`sessionsSeen`), shared by every node and kept over restarts, rewritten
 *   only when it lags more than 1/24 of the timeout behind (30 min for 12 h), in one batch per flush.
 * A node that has not served a session itself judges it by the shared record, so the timeout may act
 * up to 1/24 of it (plus a flush interval) early there. Called concurrently by every request.
 */
export class SessionActivity extends WritesBatched<string, { seenAt: number; expiresAt: number }> {
  private readonly seen = new Map<string, number>();
  private stored = new Map<string, number>();
  /** Last uses to write to the control plane: only those lagging STORED_LAG_SHARE of the timeout. */
  protected readonly writes: BatchedWrites<string, { seenAt: number; expiresAt: number }>;

  constructor(
    control: ControlStore,
    private readonly clock: Clock,
    log: Logger,
    private readonly idleMs: number,
  ) {
    super();
    this.writes = new BatchedWrites(control, log, 'session activity', (doc, batch) => this.store(doc, batch));
  }

  /** Called on every control-plane change: the last uses other nodes recorded. */
  reindex(doc: ControlDoc): void {
    this.stored = new Map((doc.sessionsSeen ?? []).map((s) => [s.jti, Date.parse(s.seenAt)]));
  }

  /** Throws session_expired when the session was idle too long; else records this use. */
  touch(use: SessionUse): void {
    if (this.idleMs === 0) return;
    const now = this.clock.now();
    const shared = Math.max(
      this.stored.get(use.jti) ?? 0,
      this.writes.pending.get(use.jti)?.seenAt ?? 0,
      use.iat * 1000,
    );
    const last = Math.max(this.seen.get(use.jti) ?? 0, shared);
    if (now - last > this.idleMs) {
      this.seen.delete(use.jti);
      throw new SvcError('session_expired', 'session ended after being idle; log in again');
    }
    this.seen.set(use.jti, now);
    if (now - shared > this.idleMs * STORED_LAG_SHARE)
      this.writes.pending.set(use.jti, { seenAt: now, expiresAt: use.exp * 1000 });
    if (this.seen.size > MAX_STORED) this.pruneSeen(now);
  }

  private pruneSeen(now: number): void {
    for (const [jti, t] of this.seen) if (now - t > this.idleMs) this.seen.delete(jti);
  }

  /** Folds a batch of last uses into the document, dropping expired sessions' records. */
  private store(doc: ControlDoc, batch: ReadonlyMap<string, { seenAt: number; expiresAt: number }>): void {
    const now = this.clock.now();
    const byJti = new Map((doc.sessionsSeen ?? []).filter((s) => Date.parse(s.expiresAt) > now).map((s) => [s.jti, s]));
    for (const [jti, p] of batch) {
      const old = byJti.get(jti);
      if (!old || Date.parse(old.seenAt) < p.seenAt)
        byJti.set(jti, {
          jti,
          seenAt: new Date(p.seenAt).toISOString(),
          expiresAt: new Date(p.expiresAt).toISOString(),
        });
    }
    doc.sessionsSeen = [...byJti.values()].sort((a, b) => b.seenAt.localeCompare(a.seenAt)).slice(0, MAX_STORED);
  }
}
