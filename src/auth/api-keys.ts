import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { ApiKeyRecord } from '../control/records.js';
import { Credentials } from './credentials.js';
import type { Allowlists, Scope } from './principal.js';
import { API_KEY_PREFIX, type SecretHasher } from './secrets.js';
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
export class ApiKeys extends Credentials<ApiKeyRecord, ApiKeyView> {
  constructor(control: ControlStore, hasher: SecretHasher, clock: Clock, usage: UsageTracker) {
    super(control, hasher, clock, usage, { list: 'apiKeys', noun: 'API key', prefix: API_KEY_PREFIX, max: MAX_API_KEYS });
  }

  async create(input: NewApiKey, createdBy: string): Promise<ApiKeyView & { secret: string }> {
    const { secret, base } = this.fresh(input.name, createdBy);
    const record: ApiKeyRecord = {
      ...base,
      purpose: input.purpose ?? '',
      scopes: normaliseScopes(input.scopes),
      allow: input.allow ?? { envs: ['*'], indexes: ['*'], tools: ['*'] },
      // from the creation time itself, not a second reading of the clock: "30 days" is 30 days to the ms
      expiresAt: input.expiresInDays ? new Date(Date.parse(base.createdAt) + input.expiresInDays * 86_400_000).toISOString() : null,
    };
    return this.add(record, secret);
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
