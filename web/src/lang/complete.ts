import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import type { FieldInfo, Language } from '../api/types';
import { quoteValue } from '../search/query-edit';
import { valueText } from '../ui/format';

/**
 * Autocomplete for the query editor. It reads only what the page already holds (the language's
 * vocabulary, loaded once, and the fields of the last search), so typing never waits on the network.
 */
export interface CompletionData {
  language: Language | null;
  fields: FieldInfo[];
}

const STATS_LIKE = new Set(['stats', 'timechart', 'chart', 'eventstats', 'streamstats']);
const FIELD_LIST = new Set([
  'fields',
  'table',
  'sort',
  'dedup',
  'top',
  'rare',
  'rename',
  'fillnull',
  'bin',
  'bucket',
  'transaction',
  'spath',
  'kv',
]);
const EXPR = new Set(['where', 'eval']);

/** Index of the last `|` outside quotes before `pos`, or -1. */
function lastPipe(text: string): number {
  let inStr = false;
  let at = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr && c === '\\') i++;
    else if (c === '"') inStr = !inStr;
    else if (c === '|' && !inStr) at = i;
  }
  return at;
}

function fieldOptions(data: CompletionData, suffix: string, boost = 0): Completion[] {
  const core = data.language?.coreFields ?? ['host', 'source', 'sourcetype', 'index', 'message'];
  const names = new Map<string, Completion>();
  data.fields.forEach((f, i) =>
    names.set(f.name, {
      label: f.name,
      apply: f.name + suffix,
      type: 'property',
      detail: `${f.count.toLocaleString()} events`,
      boost: boost + Math.max(0, 50 - i) / 50,
    }),
  );
  for (const c of core)
    if (!names.has(c) && c !== '_time')
      names.set(c, { label: c, apply: c + suffix, type: 'property', detail: 'core field', boost });
  // fields svc finds in the text at search time: offered after the ones the last search saw
  for (const x of data.language?.extractedFields ?? []) {
    if (!names.has(x.name))
      names.set(x.name, {
        label: x.name,
        apply: x.name + suffix,
        type: 'property',
        detail: 'from the text',
        info: `Found in messages of: ${x.formats.join(', ')}`,
        boost: boost - 1,
      });
  }
  return [...names.values()];
}

function valueOptions(data: CompletionData, field: string): Completion[] {
  const f = data.fields.find((x) => x.name === field);
  if (!f) return [];
  return f.top.map((t, i) => {
    const raw = valueText(t.value);
    const apply = typeof t.value === 'number' || typeof t.value === 'boolean' ? raw : quoteValue(raw);
    return { label: apply, type: 'constant', detail: `${t.count.toLocaleString()}`, boost: 10 - i };
  });
}

function items(list: Language['pipes'] | undefined, type: string, apply?: (name: string) => string): Completion[] {
  // the detail shows the syntax after the name the label already shows
  return (list ?? []).map((p) => ({
    label: p.name,
    type,
    detail: p.syntax.startsWith(p.name) ? p.syntax.slice(p.name.length).trim() : p.syntax,
    info: p.example ? `${p.description}\n\nExample: ${p.example}` : p.description,
    apply: apply ? apply(p.name) : undefined,
  }));
}

export function completeQuery(getData: () => CompletionData) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const data = getData();
    const before = ctx.state.sliceDoc(0, ctx.pos);
    const pipe = lastPipe(before);
    // a value after `field=` / `field:` in the search part, or after `field=` in where
    const value = /([A-Za-z_@][\w.@-]*)(=|:|!=)("?[^\s"()|]*)$/.exec(before);
    if (value && (pipe < 0 || /^\s*where\b/.test(before.slice(pipe + 1)))) {
      const opts = valueOptions(data, value[1]);
      if (opts.length === 0) return null;
      return { from: ctx.pos - value[3].length, options: opts, validFor: /^"?[^\s"]*$/ };
    }
    const word = ctx.matchBefore(/[\w.@-]*/);
    if (!word || (word.from === word.to && !ctx.explicit && !/[|,(\s]$/.test(before))) return null;
    if (pipe < 0) {
      const logic: Completion[] = ['AND', 'OR', 'NOT'].map((k) => ({ label: k, type: 'keyword', boost: -5 }));
      return { from: word.from, options: [...fieldOptions(data, '='), ...logic], validFor: /^[\w.@-]*$/ };
    }
    const seg = before.slice(pipe + 1);
    const cmd = /^\s*([A-Za-z_]*)/.exec(seg)![1].toLowerCase();
    if (/^\s*[A-Za-z_]*$/.test(seg)) {
      return { from: word.from, options: items(data.language?.pipes, 'keyword', (n) => `${n} `), validFor: /^\w*$/ };
    }
    if (STATS_LIKE.has(cmd)) {
      if (/\bby\b[^|]*$/i.test(seg))
        return { from: word.from, options: fieldOptions(data, ''), validFor: /^[\w.@-]*$/ };
      if (/\(\s*[\w.@-]*$/.test(before))
        return { from: word.from, options: fieldOptions(data, ''), validFor: /^[\w.@-]*$/ };
      const aggs = items(data.language?.aggregations, 'function', (n) => (n === 'count' ? 'count' : `${n}(`));
      return {
        from: word.from,
        options: [...aggs, { label: 'by', type: 'keyword', apply: 'by ' }],
        validFor: /^[\w.@-]*$/,
      };
    }
    if (EXPR.has(cmd)) {
      const fns = items(data.language?.functions, 'function', (n) => `${n}(`);
      return { from: word.from, options: [...fieldOptions(data, ''), ...fns], validFor: /^[\w.@-]*$/ };
    }
    if (FIELD_LIST.has(cmd)) return { from: word.from, options: fieldOptions(data, ''), validFor: /^[\w.@-]*$/ };
    return { from: word.from, options: fieldOptions(data, ''), validFor: /^[\w.@-]*$/ };
  };
}
