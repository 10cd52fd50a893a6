import { z } from 'zod';
import { fromField, limitField, toField } from './common.js';
import { eventsOutput, tableOutput } from './tool-search.js';
import { defineTool } from './types.js';

export const runSavedSearchTool = defineTool({
  name: 'run_saved_search',
  title: 'Run a saved search',
  description: `Run a saved search by the id list_saved_searches gave, with your own access: an environment you may not read is refused or, for a search of every environment, left out. Uses the saved time range unless you give from/to. Answers like search: events newest first with ids for get_event, or the table of a query with a table-building pipe.`,
  input: z.object({
    id: z.string().min(1).max(100).describe('The saved search id (ss_…) from list_saved_searches.'),
    from: fromField.describe('Start of the time range for this run instead of the saved one (RFC 3339 or relative).'),
    to: toField.describe('End of the time range for this run instead of the saved one.'),
    limit: limitField('Most events or rows to return'),
  }),
  async run({ deps, principal, signal }, args) {
    const res = await deps.savedSearches.run(principal, args.id, {
      from: args.from,
      to: args.to,
      limit: args.limit,
      signal,
    });
    const out = res.columns ? tableOutput(res) : eventsOutput(res);
    const what = { ...res.savedSearch, range: res.range, envs: res.envs };
    return {
      text: `saved search "${res.savedSearch.name}" over ${res.range.from} .. ${res.range.to} in ${res.envs.join(', ') || 'no environment you may read'}\n${out.text}`,
      structured: { savedSearch: what, ...out.structured },
      resultCount: out.resultCount,
    };
  },
});
