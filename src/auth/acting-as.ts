import type { ControlDoc } from '../control/records.js';
import { SvcError } from '../errors/svc-error.js';
import { keyState, ownerRefusal } from './api-keys.js';
import type { Principal, Scope } from './principal.js';
import { userPrincipal } from './service.js';

/** Who made a stored job (a monitor): the user or API key it acts as. */
export interface Owner {
  kind: 'user' | 'api_key';
  id: string;
  name: string;
}

/** The owner of a request, to store with what it creates. */
export function ownerOf(p: Principal): Owner {
  if (p.kind === 'ingest_token') throw new SvcError('insufficient_scope', 'ingest tokens can only push logs');
  return { kind: p.kind, id: p.id, name: p.name };
}

/**
 * The principal a stored job runs as, with the owner's access as it is now: a role or allowlist
 * changed since is applied, and a deleted, disabled or expired owner cannot run anything.
 */
export function actingAs(doc: Readonly<ControlDoc>, owner: Owner, nowMs: number): Principal {
  if (owner.kind === 'user') {
    const u = doc.users.find((x) => x.id === owner.id);
    if (!u) throw new SvcError('access_denied', `the owner, user "${owner.name}", no longer exists`);
    if (u.disabled) throw new SvcError('access_denied', `the owner, user "${owner.name}", is disabled`);
    return userPrincipal(u, 'job');
  }
  const k = doc.apiKeys.find((x) => x.id === owner.id);
  if (!k) throw new SvcError('access_denied', `the owner, API key "${owner.name}", no longer exists`);
  const state = keyState(k, nowMs);
  if (state !== 'enabled') throw new SvcError('access_denied', `the owner, API key "${owner.name}", is ${state}`);
  // the key's own owner, as at authentication: a job keeps no power its key has lost
  const refusal = ownerRefusal(
    k,
    doc.users.find((u) => u.id === k.ownerId),
  );
  if (refusal)
    throw new SvcError(
      'access_denied',
      `the owner, API key "${owner.name}", ${refusal.message.replace(/^API key /, '')}`,
    );
  if (!k.scopes.includes('standard') && !k.scopes.includes('admin'))
    throw new SvcError('access_denied', `the owner, API key "${owner.name}", lacks the Standard API scope`);
  return {
    kind: 'api_key',
    id: k.id,
    name: k.name,
    scopes: new Set<Scope>(k.scopes),
    allow: k.allow,
    createdBy: k.createdBy,
  };
}
