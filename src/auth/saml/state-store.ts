import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Clock } from '../../clock/clock.js';
import type { SamlState } from '../../control/records.js';
import type { ControlStore } from '../../control/store.js';
import { REQUEST_TTL_MS, type SamlBinding } from './binding.js';

/** Bounds of the used-assertion list in the control plane (written only after a valid, signed answer). */
const MAX_ASSERTIONS = 50_000;
/** Bound of this node's memory of answered requests; only ids svc issued (MAC-checked) get in. */
const MAX_ANSWERED = 10_000;

/**
 * SAML state, split by what it costs to keep (docs/saml.md):
 * - AuthnRequests waiting for an answer are node-saml's CacheProvider, kept nowhere: an id carries
 *   its creation time and a MAC (SamlBinding), so any node recognises svc's own ids without a write,
 *   and a flood of unauthenticated logins changes nothing stored. Ids answered here (even badly) are
 *   remembered in memory until they expire, so a second answer to one request fails on this node.
 * - Assertion ids already used to log in live in the control plane (until their NotOnOrAfter), so
 *   that a replay fails on every node; only a validated, signed assertion writes there. Reads
 *   re-check the stored document first, because another node may have changed it a moment ago.
 */
export class SamlStateStore implements CacheProvider {
  /** Request id → when this node may forget it was answered (its id expires then anyway). */
  private readonly answered = new Map<string, number>();

  constructor(
    private readonly control: ControlStore,
    private readonly clock: Clock,
    private readonly binding: SamlBinding,
  ) {}

  private prune(s: SamlState, now: number): void {
    s.assertions = s.assertions.filter((a) => Date.parse(a.expiresAt) > now).slice(-MAX_ASSERTIONS);
  }

  /** Nothing to store: the id itself says svc issued it, and when. */
  async saveAsync(_key: string, value: string): Promise<CacheItem | null> {
    return { value, createdAt: this.clock.now() };
  }

  async getAsync(key: string): Promise<string | null> {
    const now = this.clock.now();
    if ((this.answered.get(key) ?? 0) > now) return null;
    const createdAt = this.binding.requestCreatedAt(key, now);
    return createdAt === undefined ? null : new Date(createdAt).toISOString();
  }

  async removeAsync(key: string | null): Promise<string | null> {
    const now = this.clock.now();
    const createdAt = key === null ? undefined : this.binding.requestCreatedAt(key, now);
    if (key === null || createdAt === undefined) return null;
    if (this.answered.size >= MAX_ANSWERED) this.forget(now);
    this.answered.set(key, createdAt + REQUEST_TTL_MS);
    return new Date(createdAt).toISOString();
  }

  /** Drops expired entries, then the oldest: losing one only lets a request be answered twice, which the used-assertion list still refuses. */
  private forget(now: number): void {
    for (const [k, until] of this.answered) if (until <= now) this.answered.delete(k);
    for (const k of this.answered.keys()) {
      if (this.answered.size < MAX_ANSWERED) break;
      this.answered.delete(k);
    }
  }

  /** Has this assertion been used to log in already (on any node)? */
  async assertionSeen(id: string): Promise<boolean> {
    await this.control.reloadIfChanged();
    return this.control.doc.saml.assertions.some((a) => a.id === id && Date.parse(a.expiresAt) > this.clock.now());
  }

  /**
   * Records an assertion as used until `expiresAt`, in one write that also checks it was not used:
   * answers false when it was (two posts of one response racing each other).
   */
  async useAssertion(id: string, expiresAt: string): Promise<boolean> {
    const now = this.clock.now();
    return this.control.mutate((doc) => {
      this.prune(doc.saml, now);
      if (doc.saml.assertions.some((a) => a.id === id)) return false;
      doc.saml.assertions.push({ id, expiresAt });
      return true;
    });
  }
}
