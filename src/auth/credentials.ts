import type { Clock } from '../clock/clock.js';
import type { ControlDoc, CredentialRecord } from '../control/records.js';
import type { ControlStore } from '../control/store.js';
import { SvcError } from '../errors/svc-error.js';
import { newId, newSecret, type SecretHasher } from './secrets.js';
import type { UsageTracker } from './usage.js';

/** Where one kind of credential lives in the control document, and how it is named in messages. */
export interface CredentialKind {
  list: 'apiKeys' | 'ingestTokens';
  /** `API key`, `ingest token`. */
  noun: string;
  prefix: Parameters<typeof newSecret>[0];
  max: number;
}

/**
 * What API keys and ingest tokens share: a secret answered once (only its HMAC and last four are
 * kept), list, get, disable/enable, delete. Subclasses add their own fields and their view.
 */
export abstract class Credentials<R extends CredentialRecord, V> {
  constructor(
    protected readonly control: ControlStore,
    protected readonly hasher: SecretHasher,
    protected readonly clock: Clock,
    protected readonly usage: UsageTracker,
    private readonly kind: CredentialKind,
  ) {}

  abstract view(r: R): V;

  private records(doc: Readonly<ControlDoc>): R[] {
    return doc[this.kind.list] as unknown as R[];
  }

  /** A new secret and the record fields every credential has. */
  protected fresh(name: string, createdBy: string): { secret: string; base: CredentialRecord } {
    const secret = newSecret(this.kind.prefix);
    const base = {
      id: newId(),
      name,
      createdBy,
      createdAt: new Date(this.clock.now()).toISOString(),
      lastUsedAt: null,
      disabled: false,
      secretHmac: this.hasher.hmac(secret),
      lastFour: secret.slice(-4),
    };
    return { secret, base };
  }

  /** Stores a new record after `check` (run on the latest document) and the count and name bounds. */
  protected async add(
    record: R,
    secret: string,
    check: (doc: ControlDoc) => void = () => {},
  ): Promise<V & { secret: string }> {
    await this.control.mutate((doc) => {
      check(doc);
      const all = this.records(doc);
      if (all.length >= this.kind.max)
        throw new SvcError('limit_reached', `cannot create more than ${this.kind.max} ${this.kind.noun}s`);
      if (all.some((k) => k.name === record.name)) {
        throw new SvcError('already_exists', `an ${this.kind.noun} named "${record.name}" already exists`, {
          details: { field: 'name' },
        });
      }
      all.push(record);
    });
    return { ...this.view(record), secret };
  }

  list(): V[] {
    return this.records(this.control.doc).map((r) => this.view(r));
  }

  get(id: string): V {
    return this.view(this.find(id));
  }

  async setDisabled(id: string, disabled: boolean): Promise<V> {
    this.find(id);
    const rec = await this.control.mutate((doc) => {
      const r = this.records(doc).find((x) => x.id === id);
      if (!r) throw this.notFound(id);
      r.disabled = disabled;
      return r;
    });
    return this.view(rec);
  }

  /** Revocation is immediate: the next request with the secret is 401. */
  async delete(id: string): Promise<void> {
    this.find(id);
    await this.control.mutate((doc) => {
      const all = this.records(doc);
      const i = all.findIndex((x) => x.id === id);
      if (i < 0) throw this.notFound(id);
      all.splice(i, 1);
    });
    this.usage.forget(id);
  }

  protected find(id: string): R {
    const r = this.records(this.control.doc).find((x) => x.id === id);
    if (!r) throw this.notFound(id);
    return r;
  }

  private notFound(id: string): SvcError {
    return new SvcError('not_found', `no ${this.kind.noun} with id "${id}"`);
  }
}
