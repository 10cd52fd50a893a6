import { z } from 'zod';
import { QUERY_SYNTAX, SCOPE_ADVICE, TIME_ADVICE } from '../query-help.js';
import { emptyAdvice, eventLine, fitLines, metaLine, tableText, truncationNote, withId } from '../format.js';
import { compact, limitField, queryField, rangeShape } from './common.js';
import { defineTool, type ToolOutput } from './types.js';
import type { SearchResult } from '../../query/types.js';

const input = z.object({
  query: queryField(),
  ...rangeShape,
  limit: limitField('Most events to return, newest first'),
});

export const searchTool = defineTool({
  name: 'search',
  title: 'Search log events',
  description: `Find log events matching a query; returns the newest first, one line each with time, env/index, host, source, message, fields and an id for get_event. A query with a pipe that builds a table (stats, timechart, top, ...) returns the table instead; the aggregate tool is the clearer way to ask for one.
${QUERY_SYNTAX}
${TIME_ADVICE}
${SCOPE_ADVICE}
Keep limit small (10-50) when exploring; use aggregate for counts instead of fetching many events.`,
  input,
  async run({ deps, principal }, args) {
    const res = await deps.search.search(
      principal,
      compact({ q: args.query, env: args.env, index: args.index, from: args.from, to: args.to, limit: args.limit }),
    );
    return res.columns ? tableOutput(res) : eventsOutput(res);
  },
});

export function eventsOutput(res: SearchResult): ToolOutput {
  const events = res.events.map((e) => withId(e));
  if (events.length === 0)
    return {
      text: `${metaLine(res.meta)}\n${emptyAdvice(res.meta)}`,
      structured: { events: [], meta: res.meta },
      resultCount: 0,
    };
  const header = [`${metaLine(res.meta)}; showing ${events.length} newest`];
  const fit = fitLines(
    header,
    events.map((e) => eventLine(e, e.id)),
  );
  const shownEvents = events.slice(0, fit.shown);
  let text = fit.text;
  const structured: Record<string, unknown> = { events: shownEvents, meta: res.meta };
  if (fit.shown < events.length) {
    text += `\n${truncationNote(fit.shown, events.length, 'returned events', 'narrow the query or time range, or lower limit')}`;
    structured.truncated = { shown: fit.shown, returned: events.length };
  }
  return { text, structured, resultCount: shownEvents.length };
}

export function tableOutput(res: SearchResult): ToolOutput {
  const columns = res.columns ?? [];
  const rows = res.rows ?? [];
  if (rows.length === 0) {
    const advice =
      res.meta.matched > 0
        ? 'The events matched but the table is empty: a field named after "by" may be missing from them (check discover_fields).'
        : emptyAdvice(res.meta);
    return {
      text: `${metaLine(res.meta)}\n${advice}`,
      structured: { columns, rows: [], meta: res.meta },
      resultCount: 0,
    };
  }
  const fit = tableText(columns, rows);
  let text = `${metaLine(res.meta)}; ${rows.length} rows\n${fit.text}`;
  const structured: Record<string, unknown> = { columns, rows: rows.slice(0, fit.shown), meta: res.meta };
  if (fit.shown < rows.length) {
    text += `\n${truncationNote(fit.shown, rows.length, 'rows', 'add | sort -count | head N, or group by fewer fields')}`;
    structured.truncated = { shown: fit.shown, returned: rows.length };
  }
  return { text, structured, resultCount: fit.shown };
}
