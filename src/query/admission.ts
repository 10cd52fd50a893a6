import { SvcError } from '../errors/svc-error.js';

/** How many searches may run at once, and how long the rest may wait (SVC_MAX_*SEARCHES*). */
export interface AdmissionLimits {
  /** Searches running at once over all callers (SVC_MAX_CONCURRENT_SEARCHES). */
  maxRunning: number;
  /** Searches one principal may run at once (SVC_MAX_SEARCHES_PER_USER). */
  maxPerPrincipal: number;
  /** Searches that may wait for a slot; one more is refused at once. */
  maxQueued: number;
  /** Longest a search waits for a slot before it is refused (SVC_SEARCH_QUEUE_WAIT_SECS). */
  maxWaitMs: number;
  /** Slots of their own for monitors, beside the callers' (a flood of searches cannot stop them). */
  monitorRunning: number;
  /**
   * True while ingest is falling behind (seals pending): then only one caller search runs, so
   * sealing, which shares DuckDB's threads with searches, catches up. Polled; must be cheap.
   */
  ingestBehind?: () => boolean;
}

/** How often waiters are looked at again while ingest is behind (nothing else frees a slot then). */
const BEHIND_POLL_MS = 100;

/** Who asks: `who` counts against the per-principal cap; `lane` 'monitor' runs in the monitors' own slots. */
export interface Asker {
  who: string;
  lane?: 'caller' | 'monitor';
}

interface Waiter {
  asker: Asker;
  grant: (release: () => void) => void;
}

/**
 * The one gate every search, histogram, field summary, context and export passes (QueryService):
 * at most `maxRunning` run at once, at most `maxPerPrincipal` of one principal; the others wait in
 * one FIFO queue, bounded in length and in time, then are refused with `too_many_searches`
 * (429 with Retry-After). A slot that frees goes to the oldest waiter whose principal is under its
 * own cap, so one principal's backlog never holds up the others'.
 *
 * While `ingestBehind()` says so (the server asks storage), only one caller search runs at a time
 * (docs/search-api.md has the figures).
 *
 * Monitors have `monitorRunning` slots of their own (queued FIFO without a time bound: a monitor
 * run waits for the one before it, and the search time limit still applies once it runs).
 * Single-threaded (the event loop); `admit` resolves with the release function, to call once.
 */
export class SearchAdmission {
  private running = 0;
  private monitorsRunning = 0;
  private readonly perWho = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private readonly monitorQueue: Waiter[] = [];
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly limits: AdmissionLimits) {}

  /** Resolves with `release` when the search may run; rejects too_many_searches, or with `signal`'s reason. */
  admit(asker: Asker, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (asker.lane === 'monitor') return this.admitMonitor(asker, signal);
    // every change of the counts drains the queue, so no waiter fits now (but for up to
    // BEHIND_POLL_MS after ingest caught up): one that fits may go first
    if (this.fits(asker)) return Promise.resolve(this.take(asker));
    if (this.queue.length >= this.limits.maxQueued) return Promise.reject(this.refusal('the search queue is full'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => leave(this.refusal(`no search slot freed within ${this.limits.maxWaitMs / 1000} s`)),
        this.limits.maxWaitMs,
      );
      // an abort's reason is an Error: svc aborts with one (AbortSignal's default is one too)
      const abort = () => leave(signal!.reason as Error);
      const leave = (e: Error) => {
        const i = this.queue.indexOf(w);
        if (i >= 0) this.queue.splice(i, 1);
        done();
        reject(e);
        this.drain(); // the waiter that left may have held up others of another principal
      };
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
      };
      const w: Waiter = { asker, grant: (release) => (done(), resolve(release)) };
      signal?.addEventListener('abort', abort, { once: true });
      this.queue.push(w);
      this.lookAgain();
    });
  }

  /** Searches running and waiting now (for tests and the self-log). */
  get load(): { running: number; queued: number; monitorsRunning: number } {
    return { running: this.running, queued: this.queue.length, monitorsRunning: this.monitorsRunning };
  }

  private fits(a: Asker, cap = this.cap()): boolean {
    return this.running < cap && (this.perWho.get(a.who) ?? 0) < this.limits.maxPerPrincipal;
  }

  /** Searches that may run now: the setting, or one while ingest is behind. */
  private cap(): number {
    return this.limits.ingestBehind?.() ? 1 : this.limits.maxRunning;
  }

  private take(a: Asker): () => void {
    this.running++;
    this.perWho.set(a.who, (this.perWho.get(a.who) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const n = (this.perWho.get(a.who) ?? 1) - 1;
      if (n === 0) this.perWho.delete(a.who);
      else this.perWho.set(a.who, n);
      this.drain();
    };
  }

  /** Grants freed slots to the oldest waiters that fit; while ingest holds slots back, looks again soon. */
  private drain(): void {
    const cap = this.cap(); // asked once: ingestBehind reads storage
    for (let i = 0; i < this.queue.length && this.running < cap;) {
      const w = this.queue[i];
      if (!this.fits(w.asker, cap)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      w.grant(this.take(w.asker));
    }
    this.lookAgain();
  }

  /** Slots are held back for ingest (or a waiter's principal is at its cap): drain again soon. */
  private lookAgain(): void {
    if (this.queue.length === 0 || this.running >= this.limits.maxRunning || this.poll) return;
    this.poll = setTimeout(() => {
      this.poll = undefined;
      this.drain();
    }, BEHIND_POLL_MS);
    this.poll.unref();
  }

  private admitMonitor(a: Asker, signal?: AbortSignal): Promise<() => void> {
    const take = () => {
      this.monitorsRunning++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.monitorsRunning--;
        const next = this.monitorQueue.shift();
        if (next) next.grant(take());
      };
    };
    if (this.monitorsRunning < this.limits.monitorRunning) return Promise.resolve(take());
    return new Promise((resolve, reject) => {
      const abort = () => {
        const i = this.monitorQueue.indexOf(w);
        if (i >= 0) this.monitorQueue.splice(i, 1);
        reject(signal!.reason as Error);
      };
      const w: Waiter = {
        asker: a,
        grant: (release) => (signal?.removeEventListener('abort', abort), resolve(release)),
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.monitorQueue.push(w);
    });
  }

  private refusal(why: string): SvcError {
    const l = this.limits;
    return new SvcError(
      'too_many_searches',
      `too many searches at once (${why}): svc runs at most ${l.maxRunning} searches at once (SVC_MAX_CONCURRENT_SEARCHES) and ${l.maxPerPrincipal} per user or key (SVC_MAX_SEARCHES_PER_USER); retry shortly`,
      {
        retryAfterSecs: Math.max(1, Math.ceil(l.maxWaitMs / 1000)),
        details: { maxConcurrent: l.maxRunning, maxPerUser: l.maxPerPrincipal },
      },
    );
  }
}

/** The gate of a server, from config: the queue holds up to 4 searches per slot; monitors get one slot of their own. */
export function searchAdmission(
  c: { maxRunning: number; maxPerPrincipal: number; maxWaitSecs: number },
  ingestBehind?: () => boolean,
): SearchAdmission {
  return new SearchAdmission({
    maxRunning: c.maxRunning,
    maxPerPrincipal: c.maxPerPrincipal,
    maxQueued: 4 * c.maxRunning,
    maxWaitMs: c.maxWaitSecs * 1000,
    monitorRunning: 1,
    ingestBehind,
  });
}
