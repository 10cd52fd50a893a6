import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Clock } from '../../clock/clock.js';
import type { SamlState } from '../../control/records.js';
import type { ControlStore } from '../../control/store.js';

/** How long an AuthnRequest may wait for its answer (a person typing a password, perhaps a second factor). */
export const REQUEST_TTL_MS = 10 * 60_000;
/** Bounds of the shared state, so a flood of abandoned logins cannot grow the control plane without end. */
const MAX_REQUESTS = 10_000;
const MAX_ASSERTIONS = 50_000;

/**
 * The SAML state every node must share, kept in the control plane (its store is what nodes share):
 * the AuthnRequest ids waiting for an answer (node-saml's CacheProvider, for InResponseTo: the IdP
 * may post the answer to another node), and the assertion ids already used (until their
 * NotOnOrAfter), so that a replay fails on every node. Reads re-check the stored document first,
 * because another node may have changed it a moment ago.
 */
export class SamlStateStore implements CacheProvider {
  constructor(
    private readonly control: ControlStore,
    private readonly clock: Clock,
  ) {}

  private prune(s: SamlState, now: number): void {
    s.requests = s.requests.filter((r) => Date.parse(r.createdAt) + REQUEST_TTL_MS > now).slice(-MAX_REQUESTS);
    s.assertions = s.assertions.filter((a) => Date.parse(a.expiresAt) > now).slice(-MAX_ASSERTIONS);
  }

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const now = this.clock.now();
    return this.control.mutate((doc) => {
      this.prune(doc.saml, now);
      if (doc.saml.requests.some((r) => r.id === key)) return null;
      doc.saml.requests.push({ id: key, createdAt: value });
      return { value, createdAt: now };
    });
  }

  async getAsync(key: string): Promise<string | null> {
    await this.control.reloadIfChanged();
    const r = this.control.doc.saml.requests.find((x) => x.id === key);
    return r && Date.parse(r.createdAt) + REQUEST_TTL_MS > this.clock.now() ? r.createdAt : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null || !this.control.doc.saml.requests.some((r) => r.id === key)) return null;
    return this.control.mutate((doc) => {
      const r = doc.saml.requests.find((x) => x.id === key);
      doc.saml.requests = doc.saml.requests.filter((x) => x.id !== key);
      return r?.createdAt ?? null;
    });
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
