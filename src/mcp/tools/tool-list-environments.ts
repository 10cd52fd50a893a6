import { z } from 'zod';
import { catalog, type Extent } from '../../query/catalog.js';
import { fitLines, truncationNote } from '../format.js';
import { defineTool } from './types.js';

export interface PartitionTotals {
  events: number;
  earliest?: string;
  latest?: string;
}

export function usToIso(us: number): string | undefined {
  return Number.isFinite(us) && us > 0 ? new Date(Math.floor(us / 1000)).toISOString() : undefined;
}

/** A catalog extent as these tools show it: times to the millisecond, none without events. */
export function totals(e: Extent): PartitionTotals {
  if (e.minTimeUs === undefined || e.maxTimeUs === undefined) return { events: e.events };
  return { events: e.events, earliest: usToIso(e.minTimeUs), latest: usToIso(e.maxTimeUs) };
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
    const list = catalog(deps, principal).map((e) => ({ env: e.name, indexes: e.indexes.length, ...totals(e) }));
    const fit = fitLines(
      [`${list.length} environments`],
      list.map((e) => `${e.env}: ${e.indexes} indexes, ${rangeText(e)}`),
    );
    const structured: Record<string, unknown> = { environments: list.slice(0, fit.shown) };
    let text = fit.text;
    if (fit.shown < list.length)
      text += `\n${truncationNote(fit.shown, list.length, 'environments', 'ask list_indexes per env')}`;
    return { text, structured, resultCount: list.length };
  },
});
