import { eventId } from '../mcp/event-id.js';
import type { EventJson } from '../query/types.js';

/** Re-read this far behind the newest event seen: events of the same instant may arrive in several batches. */
export const OVERLAP_MS = 2000;

/**
 * What `svc tail` has printed, to print each new event once. Events have no stored id: an id is
 * where, when and what an event is (mcp/event-id.ts), so identical events at the same instant
 * share one; they are counted, and an answer holding an id more often than seen so far has that
 * many new ones. Not safe for concurrent use (one poll at a time).
 */
export class TailWindow {
  private newestMs: number | undefined;
  private seen = new Map<string, { ms: number; count: number }>();

  constructor(private readonly startFrom: string) {}

  /** The `from` of the next poll: the start window until an event came, then just behind the newest. */
  from(): string {
    return this.newestMs === undefined ? this.startFrom : new Date(this.newestMs - OVERLAP_MS).toISOString();
  }

  /** Takes a poll's answer (newest first, as /api/search answers) and returns the events not yet printed, oldest first. */
  take(events: EventJson[]): EventJson[] {
    const inAnswer = new Map<string, number>();
    const fresh: EventJson[] = [];
    for (const e of [...events].reverse()) {
      const id = eventId(e);
      const k = (inAnswer.get(id) ?? 0) + 1;
      inAnswer.set(id, k);
      const ms = Date.parse(e.time);
      if (k > (this.seen.get(id)?.count ?? 0)) fresh.push(e);
      this.seen.set(id, { ms, count: Math.max(k, this.seen.get(id)?.count ?? 0) });
      if (this.newestMs === undefined || ms > this.newestMs) this.newestMs = ms;
    }
    this.prune();
    return fresh;
  }

  /** Ids older than the overlap can no longer come back: forget them. */
  private prune(): void {
    if (this.newestMs === undefined) return;
    const floor = this.newestMs - OVERLAP_MS * 2;
    for (const [id, s] of this.seen) if (s.ms < floor) this.seen.delete(id);
  }
}
