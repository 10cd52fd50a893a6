import { z } from 'zod';
import { StoreConflict, type ObjectStore } from '../../shared-store/object-store.js';

const doc = z.object({ holder: z.string(), until: z.number() });

/**
 * A job only one node should run at a time (the cluster's retention sweep), held through one
 * object `{holder, until}` written with conditional writes: a node takes it when it is absent,
 * expired or its own, and loses to whoever wrote first. The expiry is wall-clock time, so clocks
 * must agree to well within `ttlMs`. The lease saves work, it does not make the job safe: every
 * write the job makes is conditional on its own, so two holders (a sweep outliving its lease)
 * only repeat each other's work.
 */
export class Lease {
  private version: string | undefined;
  /** The node holding it when take() last lost. */
  heldBy: string | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly key: string,
    private readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes the lease (or extends our own); false when another node holds it. */
  async take(): Promise<boolean> {
    const cur = await this.store.get(this.key);
    const held = cur ? parseLease(cur.data) : undefined;
    if (held && held.holder !== this.holder && held.until > Date.now()) {
      this.heldBy = held.holder;
      return false;
    }
    const body = Buffer.from(JSON.stringify({ holder: this.holder, until: Date.now() + this.ttlMs }));
    try {
      this.version = await this.store.put(this.key, body, cur ? { ifVersion: cur.version } : { ifAbsent: true });
      return true;
    } catch (e) {
      if (!(e instanceof StoreConflict)) throw e;
      this.heldBy = undefined;
      return false;
    }
  }

  /** Gives it back at once (others need not wait for the expiry); a lease taken over meanwhile is left alone. */
  async release(): Promise<void> {
    if (this.version === undefined) return;
    const v = this.version;
    this.version = undefined;
    await this.store
      .put(this.key, Buffer.from(JSON.stringify({ holder: this.holder, until: 0 })), { ifVersion: v })
      .catch(() => undefined);
  }
}

/** The lease object's content; undefined when it is damaged (taken as free: it is overwritten conditionally). */
function parseLease(data: Buffer): z.infer<typeof doc> | undefined {
  try {
    const r = doc.safeParse(JSON.parse(data.toString('utf8')));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
