import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { ApiKeyRecord } from '../control/records.js';
import { SvcError } from '../errors/svc-error.js';
import type { Allowlists, Scope } from './principal.js';
import { API_KEY_PREFIX, newId, newSecret, type SecretHasher } from './secrets.js';
import type { UsageTracker } from './usage.js';

export const MAX_API_KEYS = 1000;

export type KeyState = 'enabled' | 'disabled' | 'expired';

/**
 * An API key as the admin API shows it (DESIGN 4): the stored record without its secret's HMAC,
 * with the derived state. Only the last four characters of the secret are ever shown.
 */
export type ApiKeyView = Omit<ApiKeyRecord, 'disabled' | 'secretHmac'> & { state: KeyState };

export interface NewApiKey {
  name: string;
  purpose?: string;
  scopes: Scope[];
  expiresInDays?: number;
  allow?: Allowlists;
}

export function keyState(k: { disabled: boolean; expiresAt?: string | null }, nowMs: number): KeyState {
  if (k.disabled) return 'disabled';
  if (k.expiresAt && Date.parse(k.expiresAt) <= nowMs) return 'expired';
  return 'enabled';
}

/** `admin` implies `standard`; stored scopes say so explicitly and in a fixed order. */
export function normaliseScopes(scopes: readonly Scope[]): Scope[] {
  const set = new Set(scopes);
  if (set.has('admin')) set.add('standard');
  return (['standard', 'admin', 'mcp'] as const).filter((s) => set.has(s));
}

/** Management of API keys in the control plane: create (secret answered once), list, disable, enable, delete. */
export class ApiKeys {
  constructor(
    private readonly control: ControlStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly usage: UsageTracker,
  ) {}

  async create(input: NewApiKey, createdBy: string): Promise<ApiKeyView & { secret: string }> {
    const secret = newSecret(API_KEY_PREFIX);
    const now = this.clock.now();
    const record: ApiKeyRecord = {
      id: newId(),
      name: input.name,
      purpose: input.purpose ?? '',
      scopes: normaliseScopes(input.scopes),
      allow: input.allow ?? { envs: ['*'], indexes: ['*'], tools: ['*'] },
      expiresAt: input.expiresInDays ? new Date(now + input.expiresInDays * 86_400_000).toISOString() : null,
      createdBy,
      createdAt: new Date(now).toISOString(),
      lastUsedAt: null,
      disabled: false,
      secretHmac: this.hasher.hmac(secret),
      lastFour: secret.slice(-4),
    };
    await this.control.mutate((doc) => {
      if (doc.apiKeys.length >= MAX_API_KEYS) throw new SvcError('limit_reached', `cannot create more than ${MAX_API_KEYS} API keys`);
      if (doc.apiKeys.some((k) => k.name === input.name)) {
        throw new SvcError('already_exists', `an API key named "${input.name}" already exists`, { details: { field: 'name' } });
      }
      doc.apiKeys.push(record);
    });
    return { ...this.view(record), secret };
  }

  list(): ApiKeyView[] {
    return this.control.doc.apiKeys.map((k) => this.view(k));
  }

  get(id: string): ApiKeyView {
    return this.view(this.find(id));
  }

  async setDisabled(id: string, disabled: boolean): Promise<ApiKeyView> {
    this.find(id);
    const rec = await this.control.mutate((doc) => {
      const k = doc.apiKeys.find((x) => x.id === id);
      if (!k) throw notFound(id);
      k.disabled = disabled;
      return k;
    });
    return this.view(rec);
  }

  /** Revocation is immediate: the next request with the secret is 401. */
  async delete(id: string): Promise<void> {
    this.find(id);
    await this.control.mutate((doc) => {
      const i = doc.apiKeys.findIndex((x) => x.id === id);
      if (i < 0) throw notFound(id);
      doc.apiKeys.splice(i, 1);
    });
    this.usage.forget(id);
  }

  private find(id: string): ApiKeyRecord {
    const k = this.control.doc.apiKeys.find((x) => x.id === id);
    if (!k) throw notFound(id);
    return k;
  }

  view(k: ApiKeyRecord): ApiKeyView {
    return {
      id: k.id,
      name: k.name,
      purpose: k.purpose,
      scopes: [...k.scopes],
      allow: k.allow,
      expiresAt: k.expiresAt,
      createdBy: k.createdBy,
      createdAt: k.createdAt,
      lastUsedAt: this.usage.lastUsed(k.id) ?? k.lastUsedAt,
      state: keyState(k, this.clock.now()),
      lastFour: k.lastFour,
    };
  }
}

function notFound(id: string): SvcError {
  return new SvcError('not_found', `no API key with id "${id}"`);
}
