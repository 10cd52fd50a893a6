import { z } from 'zod';
import { SCOPE_ADVICE, TIME_ADVICE } from '../query-help.js';
import { metaLine } from '../format.js';
import { compact, queryField, rangeShape } from './common.js';
import { tableOutput } from './tool-search.js';
import { defineTool } from './types.js';

const TABLE_COMMANDS =
  /^\s*(stats|timechart|top|rare|chart|table|fields|eval|where|sort|head|tail|dedup|rex|patterns)\b/i;

const input = z.object({
  query: queryField('Filter selecting the events to aggregate'),
  aggregation: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      'What to compute, as the part after the pipe: "count by host", "avg(duration_ms), p95(duration_ms) by service", "dc(user) by env", "timechart span=1h count by status", "top 10 uri". A bare stats expression gets "stats" put in front.',
    ),
  ...rangeShape,
});

/** `count by host` → `stats count by host`; `top 10 uri` and `timechart ...` stay as they are. */
export function aggregationPipeline(query: string, aggregation: string): string {
  const agg = aggregation.trim().replace(/^\|\s*/, '');
  const pipe = TABLE_COMMANDS.test(agg) ? agg : `stats ${agg}`;
  return `${query.trim() || '*'} | ${pipe}`;
}

export const aggregateTool = defineTool({
  name: 'aggregate',
  title: 'Aggregate log events (stats)',
  description: `Count and summarise events into a table: counts, sums, averages, percentiles and distinct counts grouped by fields, or a time chart. Runs "<query> | <aggregation>" and returns columns and rows.
Aggregations: stats count|sum(f)|avg(f)|min(f)|max(f)|dc(f)|values(f)|p50(f)|p95(f)|p99(f) [as name] ... by f1, f2 · timechart span=5m <agg> [by f] · top N f · rare f · patterns [by f] [limit=N] (message templates with counts; nothing may follow it). Follow with more pipes to shape the table: "count by host | sort -count | head 10".
Examples: query="status>=500" aggregation="count by host, status"; query="*" aggregation="count by index"; query="service=checkout" aggregation="p95(duration_ms) by endpoint"; query="error" aggregation="timechart span=15m count".
Filter syntax: terms, "phrases", field=value, field>n, AND/OR/NOT, wildcards (see the search tool).
${TIME_ADVICE}
${SCOPE_ADVICE}`,
  input,
  async run({ deps, principal }, args) {
    const q = aggregationPipeline(args.query, args.aggregation);
    const res = await deps.search.search(
      principal,
      compact({ q, env: args.env, index: args.index, from: args.from, to: args.to }),
    );
    if (!res.columns) {
      return {
        text: `${metaLine(res.meta)}\nthe aggregation "${args.aggregation}" made no table; use a stats, timechart, top or rare expression`,
        structured: { query: q, columns: [], rows: [], meta: res.meta },
        resultCount: 0,
      };
    }
    const out = tableOutput(res);
    return { ...out, text: `query: ${q}\n${out.text}`, structured: { query: q, ...out.structured } };
  },
});
