import type { Owner } from './acting-as.js';
import type { Principal } from './principal.js';
import { isAdmin } from './rbac.js';
import { SvcError } from '../errors/svc-error.js';

/**
 * Who may see and change an object people keep and share (saved searches, dashboards): its owner
 * and admins change it, others see it only when it is shared, read-only
 * (docs/decisions/0023-saved-searches.md, 0024-dashboards.md). Pure decisions, no storage.
 */
export interface Shareable {
  id: string;
  owner: Owner;
  shared: boolean;
  version: number;
}

export function isOwner(p: Principal, o: Shareable): boolean {
  return p.kind !== 'ingest_token' && o.owner.kind === p.kind && o.owner.id === p.id;
}

/** Visible: the owner's, an admin's (every one, for moderation), or shared. */
export function mayView(p: Principal, o: Shareable): boolean {
  return isOwner(p, o) || o.shared || isAdmin(p);
}

export function mayEdit(p: Principal, o: Shareable): boolean {
  return isOwner(p, o) || isAdmin(p);
}

/**
 * The object `id` as `p` may see it: another's private one is "not found" (its existence is not the
 * caller's business); a visible one the caller may not change is 403 when `edit` is asked.
 */
export function visible<T extends Shareable>(
  p: Principal,
  list: readonly T[],
  id: string,
  what: string,
  edit = false,
): T {
  const o = list.find((x) => x.id === id);
  if (!o || !mayView(p, o)) throw new SvcError('not_found', `no ${what} ${id}`);
  if (edit && !mayEdit(p, o))
    throw new SvcError('access_denied', `${what} ${id} is shared read-only: only its owner or an admin may change it`);
  return o;
}

/**
 * Refuses a change made from a version other than the stored one: two editors on two nodes never
 * overwrite each other silently; the second is told the version to reload.
 */
export function checkVersion(o: Shareable, version: number | undefined, what: string): void {
  if (version !== undefined && version !== o.version)
    throw new SvcError(
      'version_conflict',
      `${what} ${o.id} was changed meanwhile: you edited version ${version}, it is now version ${o.version}; reload it and apply your change again`,
      { details: { field: 'version', currentVersion: o.version } },
    );
}
