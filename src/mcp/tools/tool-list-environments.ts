import { z } from 'zod';
import { canRead } from '../../auth/rbac.js';
import type { Principal } from '../../auth/principal.js';
import type { PartitionSummary } from '../../storage/types.js';
import { fitLines, truncationNote } from '../format.js';
import { defineTool, type McpDeps } from './types.js';

export interface PartitionTotals {
  events: number;
  earliest?: string;
  latest?: string;
}

export function usToIso(us: number): string | undefined {
  return Number.isFinite(us) && us > 0 ? new Date(Math.floor(us / 1000)).toISOString() : undefined;
}

export function totals(parts: PartitionSummary[]): PartitionTotals {
  if (parts.length === 0) return { events: 0 };
  return {
    events: parts.reduce((n, p) => n + p.events, 0),
    earliest: usToIso(Math.min(...parts.map((p) => p.minTimeUs))),
    latest: usToIso(Math.max(...parts.map((p) => p.maxTimeUs))),
  };
}

/** Environments the principal may read: the control plane's, plus any holding data (e.g. `_system` for admins). */
export function readableEnvs(deps: McpDeps, p: Principal): string[] {
  const names = new Set(deps.control.envs().map((e) => e.name));
  for (const part of deps.store.partitions()) names.add(part.env);
  return [...names].filter((env) => canRead(p, env)).sort();
}

export function rangeText(t: PartitionTotals): string {
  return t.events > 0 ? `${t.events} events, ${t.earliest} .. ${t.latest}` : 'no events';
}

export const listEnvironmentsTool = defineTool({
  name: 'list_environments',
  title: 'List environments',
  description:
    'List the environments (env) you may search, with event counts, index counts and the time span of their events. Environments separate deployments such as prod and staging; "default" always exists. Pass a name as env to the other tools, or "*" for all. Use the time span to choose from/to for searches.',
  input: z.object({}),
  async run({ deps, principal }) {
    const envs = readableEnvs(deps, principal);
    const parts = deps.store.partitions(envs).filter((p) => canRead(principal, p.env, p.index));
    const list = envs.map((env) => {
      const mine = parts.filter((p) => p.env === env);
      return { env, indexes: new Set(mine.map((p) => p.index)).size, ...totals(mine) };
    });
    const fit = fitLines([`${list.length} environments`], list.map((e) => `${e.env}: ${e.indexes} indexes, ${rangeText(e)}`));
    const structured: Record<string, unknown> = { environments: list.slice(0, fit.shown) };
    let text = fit.text;
    if (fit.shown < list.length) text += `\n${truncationNote(fit.shown, list.length, 'environments', 'ask list_indexes per env')}`;
    return { text, structured, resultCount: list.length };
  },
});
