import type { ControlReader } from '../control/types.js';
import { SvcError } from '../errors/svc-error.js';

/**
 * The per-environment cap on searches one user or API key runs at once (an env's
 * `maxSearchesPerUser`, docs/limits.md), checked before the global admission gate
 * (query/admission.ts, whose SVC_MAX_SEARCHES_PER_USER still applies). A search counts against
 * every env it names: `env=*` against each env that has a cap. Over the cap it is refused at once
 * with too_many_searches (429, Retry-After): a caller over an env's own limit is told so rather
 * than queued behind itself. Per node. Single-threaded (the event loop).
 */
export class EnvSearchCaps {
  /** `${who}\u0000${env}` → searches running. */
  private readonly running = new Map<string, number>();

  constructor(private readonly control: Pick<ControlReader, 'env' | 'envs'>) {}

  /** Counts the search in; returns its release (call once). Throws too_many_searches over an env's cap. */
  enter(who: { key: string; name: string }, env: string | undefined): () => void {
    const envs = this.capped(env);
    if (envs.length === 0) return () => undefined; // fast path: no cap on the envs searched
    for (const [name, cap] of envs) {
      if ((this.running.get(`${who.key}\u0000${name}`) ?? 0) >= cap) {
        throw new SvcError(
          'too_many_searches',
          `${who.name} already runs ${cap} search${cap === 1 ? '' : 'es'} over environment "${name}", its limit per user or key (Admin → Environments); retry when one ends`,
          { retryAfterSecs: 1, details: { env: name, maxSearchesPerUser: cap } },
        );
      }
    }
    for (const [name] of envs) this.bump(`${who.key}\u0000${name}`, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [name] of envs) this.bump(`${who.key}\u0000${name}`, -1);
    };
  }

  private capped(env: string | undefined): [string, number][] {
    const recs = env === '*' ? this.control.envs() : [this.control.env(env && env.length > 0 ? env : 'default')];
    const out: [string, number][] = [];
    for (const r of recs) if (r?.maxSearchesPerUser !== undefined) out.push([r.name, r.maxSearchesPerUser]);
    return out;
  }

  private bump(k: string, by: number): void {
    const n = (this.running.get(k) ?? 0) + by;
    if (n <= 0) this.running.delete(k);
    else this.running.set(k, n);
  }
}
