import { z } from 'zod';
import type { SavedSearchView } from '../../saved-searches/types.js';
import { cut, fitLines, truncationNote } from '../format.js';
import { defineTool } from './types.js';

/** Query characters shown per saved search in the list (run_saved_search runs it whole). */
const QUERY_CHARS = 300;

export const listSavedSearchesTool = defineTool({
  name: 'list_saved_searches',
  title: 'List saved searches',
  description:
    'List the saved searches you may run: your own and those others shared, most recently used first, each with its id, name, owner, env, time range and query. Run one with run_saved_search (it runs with your access, so it may find less than it found for its owner). Optionally filter by a part of the name.',
  input: z.object({
    name: z.string().max(200).optional().describe('Only saved searches whose name contains this (any case).'),
  }),
  async run({ deps, principal }, args) {
    const list = deps.savedSearches.list(principal, { q: args.name }).map(summary);
    const fit = fitLines(
      [`${list.length} saved searches`],
      list.map(
        (s) =>
          `${s.id} "${s.name}" by ${s.owner}${s.shared ? ' (shared)' : ''}: env=${s.env}${s.index ? ` index=${s.index}` : ''} from=${s.from} to=${s.to} | ${cut(s.query, QUERY_CHARS).replace(/\n/g, ' ')}`,
      ),
    );
    const structured: Record<string, unknown> = { savedSearches: list.slice(0, fit.shown) };
    let text = fit.text;
    if (fit.shown < list.length)
      text += `\n${truncationNote(fit.shown, list.length, 'saved searches', 'filter by name')}`;
    return { text, structured, resultCount: fit.shown };
  },
});

function summary(s: SavedSearchView) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    owner: s.owner.name,
    shared: s.shared,
    query: s.query,
    env: s.env,
    ...(s.index ? { index: s.index } : {}),
    from: s.range.from,
    to: s.range.to,
    view: s.view.type,
    lastUsedAt: s.lastUsedAt,
  };
}
