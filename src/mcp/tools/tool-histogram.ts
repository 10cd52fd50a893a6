import { z } from 'zod';
import { SCOPE_ADVICE, TIME_ADVICE } from '../query-help.js';
import { emptyAdvice, metaLine } from '../format.js';
import { compact, queryField, rangeShape } from './common.js';
import { defineTool } from './types.js';

const BAR_WIDTH = 40;

const input = z.object({
  query: queryField(),
  ...rangeShape,
  buckets: z
    .number()
    .int()
    .min(2)
    .max(200)
    .default(30)
    .describe('About how many time buckets to split the range into (default 30, max 200).'),
});

export const histogramTool = defineTool({
  name: 'histogram',
  title: 'Event counts over time',
  description: `Count matching events per time bucket, to see when something started, peaked or stopped. Returns bucket start times with counts (and a text bar chart). Then search a narrow window around the interesting bucket.
Query: the same filter language as search (terms, "phrases", field=value, field>n, AND/OR/NOT, wildcards), e.g. "error", "status>=500 host=web-*", "\\"out of memory\\"". Pipes are not needed here.
${TIME_ADVICE} Give from/to for a useful bucket size; with all time the buckets span the whole data set.
${SCOPE_ADVICE}`,
  input,
  async run({ deps, principal }, args) {
    const res = await deps.search.histogram(
      principal,
      compact({ q: args.query, env: args.env, index: args.index, from: args.from, to: args.to, buckets: args.buckets }),
    );
    const total = res.buckets.reduce((n, b) => n + b.count, 0);
    const structured = { spanSecs: res.spanSecs, buckets: res.buckets, meta: res.meta };
    if (total === 0)
      return { text: `${metaLine(res.meta)}\n${emptyAdvice(res.meta)}`, structured, resultCount: res.buckets.length };
    const max = Math.max(...res.buckets.map((b) => b.count));
    const lines = res.buckets.map(
      (b) => `${b.time} ${String(b.count).padStart(8)} ${'#'.repeat(Math.ceil((b.count / max) * BAR_WIDTH))}`,
    );
    return {
      text: `${metaLine(res.meta)}; ${res.buckets.length} buckets of ${res.spanSecs}s, ${total} events\n${lines.join('\n')}`,
      structured,
      resultCount: res.buckets.length,
    };
  },
});
