import { z } from 'zod';
import { SCOPE_ADVICE, TIME_ADVICE } from '../query-help.js';
import { cut, emptyAdvice, fitLines, metaLine, truncationNote } from '../format.js';
import { compact, queryField, rangeShape } from './common.js';
import { defineTool } from './types.js';

const input = z.object({
  query: queryField('Filter selecting the events whose fields to describe'),
  ...rangeShape,
  top: z.number().int().min(0).max(20).default(5).describe('Most common values to show per field (default 5).'),
});

export const discoverFieldsTool = defineTool({
  name: 'discover_fields',
  title: 'Discover fields',
  description: `List the fields of matching events: name, type (string, number, boolean), how many events have it, and its most common values. Use it before filtering or grouping on a field, to learn the exact field names (nested JSON keys are dotted, e.g. http.status) and realistic values.
Query: the search filter language (terms, "phrases", field=value, AND/OR/NOT, wildcards); "*" describes everything.
${TIME_ADVICE}
${SCOPE_ADVICE}`,
  input,
  async run({ deps, principal }, args) {
    const res = await deps.search.fields(
      principal,
      compact({ q: args.query, env: args.env, index: args.index, from: args.from, to: args.to, top: args.top }),
    );
    const fields = res.fields;
    if (fields.length === 0)
      return {
        text: `${metaLine(res.meta)}\n${emptyAdvice(res.meta)}`,
        structured: { fields: [], meta: res.meta },
        resultCount: 0,
      };
    const lines = fields.map((f) => {
      const top = f.top
        .map(
          (t) =>
            `${cut(typeof t.value === 'string' && t.value !== '' ? t.value : JSON.stringify(t.value), 80)} (${t.count})`,
        )
        .join(', ');
      return `${f.name} [${f.type}] in ${f.count} events${top ? `: ${top}` : ''}`;
    });
    const fit = fitLines([`${metaLine(res.meta)}; ${fields.length} fields`], lines);
    const structured: Record<string, unknown> = { fields: fields.slice(0, fit.shown), meta: res.meta };
    let text = fit.text;
    if (fit.shown < fields.length) {
      text += `\n${truncationNote(fit.shown, fields.length, 'fields', 'narrow the query, env or index')}`;
      structured.truncated = { shown: fit.shown, returned: fields.length };
    }
    return { text, structured, resultCount: fit.shown };
  },
});
