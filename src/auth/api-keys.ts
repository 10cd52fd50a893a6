import type { Clock } from '../clock/clock.js';
import type { ControlStore } from '../control/store.js';
import type { ApiKeyRecord, ControlDoc, UserRecord } from '../control/records.js';
import type { Settings } from '../control/types.js';
import { SvcError } from '../errors/svc-error.js';
import { Credentials } from './credentials.js';
import type { Allowlists, Principal, Scope } from './principal.js';
import { API_KEY_PREFIX, type SecretHasher } from './secrets.js';
import type { UsageTracker } from './usage.js';

export const MAX_API_KEYS = 1000;
export const MAX_EXPIRY_DAYS = 3650;

export type KeyState = 'enabled' | 'disabled' | 'expired';

/**
 * The key's owner as they are now: `active`; `removed` (deleted, or unknown: see
 * control/migrate.ts); `disabled`; `not_admin` (demoted since: their Admin API keys are refused,
 * their other keys work).
 */
export type OwnerState = 'active' | 'removed' | 'disabled' | 'not_admin';

/**
 * An API key as the admin API shows it (docs/decisions/0003-access-classes-and-credentials.md): the stored
 * record without its secret's HMAC, with the derived state and its owner's. Only the last four characters of
 * the secret are ever shown.
 */
export type ApiKeyView = Omit<ApiKeyRecord, 'disabled' | 'secretHmac'> & { state: KeyState; ownerState: OwnerState };

export interface NewApiKey {
  name: string;
  purpose?: string;
  scopes: Scope[];
  /** Absent: the default expiry of the settings; null: never (unless a maximum applies). */
  expiresInDays?: number | null;
  allow?: Allowlists;
}

export function keyState(k: { disabled: boolean; expiresAt?: string | null }, nowMs: number): KeyState {
  if (k.disabled) return 'disabled';
  if (k.expiresAt && Date.parse(k.expiresAt) <= nowMs) return 'expired';
  return 'enabled';
}

/** `owner`: the user `k.ownerId` names, as the control plane holds it now (undefined: none). */
export function ownerState(k: Pick<ApiKeyRecord, 'ownerId'>, owner: UserRecord | undefined): OwnerState {
  if (!k.ownerId || !owner) return 'removed';
  if (owner.disabled) return 'disabled';
  return owner.role === 'admin' ? 'active' : 'not_admin';
}

/**
 * Why a key whose own state is enabled still cannot act, because of its owner; undefined when it
 * can. Checked at every authentication against the current user record, so a user's change
 * applies to their keys at once and nothing needs to be kept in step. 401 as any disabled key.
 */
export function ownerRefusal(
  k: Pick<ApiKeyRecord, 'ownerId' | 'scopes'>,
  owner: UserRecord | undefined,
): SvcError | undefined {
  const state = ownerState(k, owner);
  if (state === 'removed')
    return new SvcError('disabled_credentials', 'API key is disabled: the user it belongs to no longer exists');
  if (state === 'disabled')
    return new SvcError('disabled_credentials', 'API key is disabled: the user it belongs to is disabled');
  if (state === 'not_admin' && k.scopes.includes('admin')) {
    return new SvcError(
      'disabled_credentials',
      'API key is disabled: it has the Admin API scope and the user it belongs to is no longer an admin',
    );
  }
  return undefined;
}

/**
 * The user a key made by `p` belongs to: a user making it owns it; a key making it passes on its
 * own owner (null when that is unknown). Keys are made through the admin API only.
 */
export function ownerIdFor(p: Principal, doc: Readonly<ControlDoc>): string | null {
  if (p.kind === 'user') return p.id;
  if (p.kind === 'api_key') return doc.apiKeys.find((k) => k.id === p.id)?.ownerId ?? null;
  return null;
}

/**
 * The days a new key lasts: what the create asked for, else the default of the settings. An Admin
 * API key must stay within the maximum: asked longer or never, 400; asked nothing, at most the maximum.
 */
export function expiryDays(requested: number | null | undefined, scopes: readonly Scope[], s: Settings): number | null {
  const max = scopes.includes('admin') ? s.adminKeyMaxDays : undefined;
  if (requested === undefined) {
    const days = s.apiKeyExpiryDefaultDays ?? max;
    return days === undefined ? null : Math.min(days, max ?? days);
  }
  if (max !== undefined && (requested === null || requested > max)) {
    const got = requested === null ? 'never' : `${requested} days`;
    throw new SvcError(
      'invalid_input',
      `expiresInDays: an Admin API key must expire within ${max} days, the maximum set under Admin → General (got ${got})`,
      { details: { field: 'expiresInDays' } },
    );
  }
  return requested;
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
    super(control, hasher, clock, usage, {
      list: 'apiKeys',
      noun: 'API key',
      prefix: API_KEY_PREFIX,
      max: MAX_API_KEYS,
    });
  }

  /** `creator`: who asks (the request's principal); the key belongs to them (ownerIdFor). */
  async create(input: NewApiKey, creator: Principal): Promise<ApiKeyView & { secret: string }> {
    const scopes = normaliseScopes(input.scopes);
    const days = expiryDays(input.expiresInDays, scopes, this.control.doc.settings);
    const { secret, base } = this.fresh(input.name, creator.name);
    const record: ApiKeyRecord = {
      ...base,
      ownerId: ownerIdFor(creator, this.control.doc),
      purpose: input.purpose ?? '',
      scopes,
      allow: input.allow ?? { envs: ['*'], indexes: ['*'], tools: ['*'] },
      // from the creation time itself, not a second reading of the clock: "30 days" is 30 days to the ms
      expiresAt: days ? new Date(Date.parse(base.createdAt) + days * 86_400_000).toISOString() : null,
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
      ownerId: k.ownerId,
      createdAt: k.createdAt,
      lastUsedAt: this.usage.lastUsed(k.id) ?? k.lastUsedAt,
      state: keyState(k, this.clock.now()),
      ownerState: ownerState(
        k,
        this.control.doc.users.find((u) => u.id === k.ownerId),
      ),
      lastFour: k.lastFour,
    };
  }
}
