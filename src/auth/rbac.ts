import { checkName } from '../control/names.js';
import { SvcError } from '../errors/svc-error.js';
import type { Allowlists, Principal, Scope } from './principal.js';

/**
 * RBAC decisions: pure functions of a principal and names, no request objects.
 * Every route that touches events asks here; the HTTP hook turns the thrown SvcError into 403.
 */

export function isReservedName(name: string): boolean {
  return name.startsWith('_');
}

/** `['*']` allows everything; otherwise an exact, case-sensitive match. */
export function listAllows(list: readonly string[], name: string): boolean {
  return list.includes('*') || list.includes(name);
}

export function hasScope(p: Principal, scope: Scope): boolean {
  if (p.kind === 'ingest_token') return false;
  if (p.scopes.has(scope)) return true;
  return scope === 'standard' && p.scopes.has('admin');
}

export function isAdmin(p: Principal): boolean {
  return hasScope(p, 'admin');
}

function allowlists(p: Principal): Allowlists {
  if (p.kind === 'ingest_token') return { envs: [p.pin.env], indexes: [p.pin.index ?? '*'], tools: [] };
  return p.allow;
}

/** May `p` read events of env/index? Reserved envs are for admins only. */
export function canRead(p: Principal, env: string, index?: string): boolean {
  if (p.kind === 'ingest_token') return false;
  if (isReservedName(env) && !isAdmin(p)) return false;
  const a = allowlists(p);
  return listAllows(a.envs, env) && (index === undefined || listAllows(a.indexes, index));
}

export interface SearchTargets {
  envs: string[];
  /** null: every index the principal may read (its allowlist is `*`). */
  indexes: string[] | null;
}

/**
 * Resolves the env/index a search names into what it may touch.
 * env defaults to `default`; `*` means every allowed, non-reserved env (silent narrowing).
 * Naming a forbidden env or index is 403 access_denied.
 */
export function resolveSearchTargets(
  p: Principal,
  req: { env?: string; index?: string },
  knownEnvs: readonly string[],
): SearchTargets {
  const a = allowlists(p);
  const envName = req.env && req.env.length > 0 ? req.env : 'default';
  let envs: string[];
  if (envName === '*') {
    envs = knownEnvs.filter((e) => !isReservedName(e) && canRead(p, e));
  } else {
    if (!canRead(p, envName)) throw new SvcError('access_denied', `access denied to environment "${envName}"`);
    envs = [envName];
  }
  if (req.index && req.index !== '*') {
    if (!listAllows(a.indexes, req.index)) throw new SvcError('access_denied', `access denied to index "${req.index}"`);
    return { envs, indexes: [req.index] };
  }
  return { envs, indexes: a.indexes.includes('*') ? null : [...a.indexes] };
}

/** May an MCP principal see and call `tool`? */
export function canUseTool(p: Principal, tool: string): boolean {
  return p.kind !== 'ingest_token' && listAllows(p.allow.tools, tool);
}

/**
 * The env/index an ingest token writes to: its pin wins; a request may only narrow an unpinned
 * index. The index follows the one name rule (control/names.ts): invalid_input / reserved_name.
 */
export function resolveIngestTarget(
  p: Principal,
  req: { env?: string; index?: string },
  defaultIndex: string,
): { env: string; index: string } {
  if (p.kind !== 'ingest_token') throw new SvcError('insufficient_scope', 'only ingest tokens may push logs');
  const env = p.pin.env;
  // a name that could never exist is answered as such, before any comparison with the pin
  if (req.env !== undefined) checkName('env', req.env);
  if (req.index !== undefined) checkName('index', req.index);
  if (req.env && req.env !== env)
    throw new SvcError('access_denied', `ingest token is pinned to environment "${env}", not "${req.env}"`);
  if (p.pin.index && req.index && req.index !== p.pin.index) {
    throw new SvcError('access_denied', `ingest token is pinned to index "${p.pin.index}", not "${req.index}"`);
  }
  const index = p.pin.index ?? (req.index !== undefined ? req.index : defaultIndex);
  if (isReservedName(env) || isReservedName(index))
    throw new SvcError('reserved_name', `cannot ingest into reserved name "${isReservedName(env) ? env : index}"`);
  checkName('index', index);
  return { env, index };
}
