/** A storage problem that is going on now, as `GET /api/health` lists it. */
export interface ActiveProblem<K extends string = string> {
  kind: K;
  message: string;
  /** The file concerned, when the problem has one (as reported: the health view makes it data-dir relative). */
  path?: string;
  /** ms since the epoch of the first report of this problem since it was last resolved. */
  since: number;
  /** ms since the epoch of the latest report (the message is the latest one's). */
  lastAt: number;
  /** Reports of this problem since `since`, the first included. */
  count: number;
}

/** Problems kept at most (one per kind and file). */
const MAX_ACTIVE = 1000;

/**
 * The problems reported and not resolved yet, one per kind and path (ProblemReporter keeps it;
 * `K` is its kinds).
 * Problems with no natural end stay until the process stops: an operator acts on them, and the
 * next start reports what is still wrong (docs/storage.md, "Health").
 */
export class ActiveProblems<K extends string> {
  private readonly byKey = new Map<string, ActiveProblem<K>>();

  static key(kind: string, path: string | undefined): string {
    return `${kind}\u0001${path ?? ''}`;
  }

  /** Marks a problem active (or updates it); answers whether it was not active before. */
  add(kind: K, message: string, path: string | undefined, now: number): boolean {
    const key = ActiveProblems.key(kind, path);
    const cur = this.byKey.get(key);
    if (cur) {
      cur.message = message;
      cur.lastAt = now;
      cur.count++;
      return false;
    }
    this.byKey.set(key, { kind, message, path, since: now, lastAt: now, count: 1 });
    if (this.byKey.size > MAX_ACTIVE) this.forgetStalest();
    return true;
  }

  /** Bounds the set when many files each have a problem that never ends (blocks of another node that cannot be read). */
  private forgetStalest(): void {
    let stalest: [string, ActiveProblem<K>] | undefined;
    for (const e of this.byKey) if (!stalest || e[1].lastAt < stalest[1].lastAt) stalest = e;
    if (stalest) this.byKey.delete(stalest[0]);
  }

  /** Ends a problem; answers whether it was active. */
  remove(kind: K, path: string | undefined): boolean {
    return this.byKey.delete(ActiveProblems.key(kind, path));
  }

  /** Active problems of one kind (e.g. every segment whose seal fails). */
  has(kind: K): boolean {
    for (const p of this.byKey.values()) if (p.kind === kind) return true;
    return false;
  }

  /** A snapshot, oldest first. */
  list(): ActiveProblem<K>[] {
    return [...this.byKey.values()].map((p) => ({ ...p })).sort((a, b) => a.since - b.since);
  }
}
