import type { Clock } from '../clock/clock.js';
import { SvcError } from '../errors/svc-error.js';
import type { ControlStore } from './store.js';
import { ENV_LIMIT_FIELDS, type EnvLimitField, type EnvRecord } from './types.js';
import { checkName } from './names.js';

// the name rule lives in names.ts; re-exported for the callers that know it from here
export { checkName };

export const DEFAULT_ENV = 'default';
/** The reserved environment that holds svc's own logs (_svclogs, _svcmcp). */
export const SYSTEM_ENV = '_system';
/** Environments svc keeps: cannot be created or deleted through the API. */
export const BUILTIN_ENVS = [DEFAULT_ENV, SYSTEM_ENV];

/** Environments in the control plane. `default` and `_system` always exist (see ensureBuiltins). */
export class Envs {
  constructor(
    private readonly control: ControlStore,
    private readonly clock: Clock,
  ) {}

  list(): EnvRecord[] {
    return this.control.envs();
  }

  get(name: string): EnvRecord {
    const e = this.control.env(name);
    if (!e) throw new SvcError('not_found', `no environment named "${name}"`);
    return e;
  }

  async create(
    input: { name: string; retentionDays?: number } & Partial<Record<EnvLimitField, number>>,
  ): Promise<EnvRecord> {
    checkName('name', input.name);
    const rec: EnvRecord = { name: input.name, createdAt: new Date(this.clock.now()).toISOString() };
    if (input.retentionDays !== undefined) rec.retentionDays = input.retentionDays;
    for (const f of ENV_LIMIT_FIELDS) if (input[f] !== undefined) rec[f] = input[f];
    await this.control.mutate((doc) => {
      if (doc.envs.some((e) => e.name === input.name)) {
        throw new SvcError('already_exists', `environment "${input.name}" already exists`, {
          details: { field: 'name' },
        });
      }
      doc.envs.push(rec);
    });
    return rec;
  }

  /** A field set to null removes its override: the global default (retention) or no limit applies again. */
  async update(
    name: string,
    patch: { retentionDays?: number | null } & Partial<Record<EnvLimitField, number | null>>,
  ): Promise<EnvRecord> {
    this.get(name);
    return this.control.mutate((doc) => {
      const e = doc.envs.find((x) => x.name === name);
      if (!e) throw new SvcError('not_found', `no environment named "${name}"`);
      for (const f of ['retentionDays', ...ENV_LIMIT_FIELDS] as const) {
        if (patch[f] === null) delete e[f];
        else if (patch[f] !== undefined) e[f] = patch[f];
      }
      return { ...e };
    });
  }

  /** Removes the environment from the control plane; ingest into it is then "unknown environment". */
  async delete(name: string): Promise<void> {
    if (BUILTIN_ENVS.includes(name)) throw new SvcError('cannot_delete', `environment "${name}" cannot be deleted`);
    this.get(name);
    await this.control.mutate((doc) => {
      doc.envs = doc.envs.filter((e) => e.name !== name);
    });
  }
}

/** Creates `default` and `_system` if missing (first start, or an older document). */
export async function ensureBuiltinEnvs(control: ControlStore, clock: Clock): Promise<void> {
  const missing = BUILTIN_ENVS.filter((n) => !control.env(n));
  if (missing.length === 0) return;
  await control.mutate((doc) => {
    for (const name of missing) {
      if (!doc.envs.some((e) => e.name === name))
        doc.envs.push({ name, createdAt: new Date(clock.now()).toISOString() });
    }
  });
}
