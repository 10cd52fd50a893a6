import type { Principal } from '../auth/principal.js';
import { canRead } from '../auth/rbac.js';
import type { ControlReader } from '../control/types.js';
import type { EventStore, PartitionSummary } from '../storage/types.js';

/**
 * What a principal may search: environments and their indexes with event counts and time spans.
 * One computation for /api/catalog (the UI's pickers) and the MCP tools list_environments and
 * list_indexes, which format it each their own way.
 */

export interface CatalogSources {
  control: Pick<ControlReader, 'envs'>;
  store: Pick<EventStore, 'partitions'>;
}

/** Events and their time span (epoch µs); no times when there are no events. */
export interface Extent {
  events: number;
  minTimeUs?: number;
  maxTimeUs?: number;
}

export interface CatalogIndex extends Extent {
  name: string;
}

export interface CatalogEnv extends Extent {
  name: string;
  /** Readable indexes holding events, by name. */
  indexes: CatalogIndex[];
}

/** Sorts by UTF-16 code units: the same order on every machine, unlike localeCompare. */
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Environments the principal may read: the control plane's, plus any holding data (e.g. `_system` for admins). */
export function readableEnvs(src: CatalogSources, p: Principal): string[] {
  const names = new Set(src.control.envs().map((e) => e.name));
  for (const part of src.store.partitions()) names.add(part.env);
  return [...names].filter((env) => canRead(p, env)).sort();
}

/** Sums partitions into one extent. */
export function extentOf(parts: Pick<PartitionSummary, 'events' | 'minTimeUs' | 'maxTimeUs'>[]): Extent {
  if (parts.length === 0) return { events: 0 };
  return {
    events: parts.reduce((n, x) => n + x.events, 0),
    minTimeUs: Math.min(...parts.map((x) => x.minTimeUs)),
    maxTimeUs: Math.max(...parts.map((x) => x.maxTimeUs)),
  };
}

/**
 * The catalog of `envs` (default: every readable env), each with its readable indexes; both sorted
 * by name. An env without readable data is listed with 0 events. Callers check `canRead` on envs
 * they name themselves.
 */
export function catalog(src: CatalogSources, p: Principal, envs: string[] = readableEnvs(src, p)): CatalogEnv[] {
  const wanted = new Set(envs);
  const parts = src.store.partitions(envs).filter((x) => wanted.has(x.env) && canRead(p, x.env, x.index));
  return [...wanted]
    .map((name) => {
      const mine = parts.filter((x) => x.env === name);
      const indexes = mine.map((x) => ({ name: x.index, ...extentOf([x]) })).sort(byName);
      return { name, ...extentOf(mine), indexes };
    })
    .sort(byName);
}
