import { doc } from '../doc.js';
import { toStr } from '../expr/coerce.js';
import { describe, printIdent } from '../lexer.js';
import { pushShapeStages } from '../patterns/shape-sql.js';
import { RESULT_COLUMNS } from '../patterns/template.js';
import { checkDistinct } from '../stages.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `patterns [by f, …] [limit=N] [field=f]`: the messages (or field f) grouped into templates such
 * as `Failed password for <*> from <*> port <*> ssh2`, one row per template with its count, first
 * and last time and a sample, most common first (within each group with `by`). The templates are
 * made after the statement runs (query/patterns/), so `patterns` is the last pipe.
 */
export interface PatternsPipe {
  kind: 'patterns';
  by: string[];
  limit?: number;
  field?: string;
}

const OPTIONS = ['by', 'limit', 'field'];

export const patternsPipe: PipeDef<PatternsPipe> = {
  name: 'patterns',
  doc: doc(
    'patterns [by <field>, …] [limit=<N>] [field=<field>]',
    'Groups the messages (or another text field) into templates such as "Failed password for <*> from <*>", with each template\'s count, first and last time and a sample, most common first; it must be the last pipe.',
    'sourcetype=sshd | patterns limit=20',
  ),
  parse(p) {
    const n: PatternsPipe = { kind: 'patterns', by: [] };
    const given = new Set<string>();
    while (!p.atPipeEnd()) {
      const t = p.peek('expr');
      const word = t.kind === 'ident' ? t.raw.toLowerCase() : '';
      if (!OPTIONS.includes(word)) throw p.unexpected(t, 'want by, limit= or field=');
      if (given.has(word)) throw p.fail(`unexpected ${describe(t)}: "${word}" is given twice`, t);
      given.add(word);
      p.next('expr');
      if (word === 'by') {
        n.by = p.fieldList('a field after "by"', { stop: OPTIONS });
        continue;
      }
      p.expectOp('=', 'expr');
      if (word === 'limit') n.limit = p.positiveInt('a number of templates');
      else n.field = p.fieldName('a field after "field="');
    }
    const end = p.peek('search');
    if (end.kind === 'op' && end.text === '|')
      throw p.fail(`unexpected ${describe(end)}: patterns must be the last pipe`, end);
    return n;
  },
  print: (n) =>
    [
      'patterns',
      ...(n.by.length ? [`by ${printListNames(n.by)}`] : []),
      ...(n.limit !== undefined ? [`limit=${n.limit}`] : []),
      ...(n.field !== undefined ? [`field=${printIdent(n.field)}`] : []),
    ].join(' '),
  reads: (n) => [n.field ?? 'message', '_time', ...n.by],
  writes: () => 'all',
  compile(n, b) {
    b.markMatched();
    checkDistinct(
      'patterns',
      [...n.by, ...RESULT_COLUMNS],
      'copy a field called like a column of patterns under another name first (eval)',
    );
    const time = b.schema.get('_time') === 'time' ? '"_time"' : undefined;
    pushShapeStages(b, { text: toStr(b.col(n.field ?? 'message')), by: n.by.map((f) => b.col(f)), time });
    b.mode = 'table';
  },
};

/** The query's `patterns` when it is its last pipe: its rows are then made into templates (query/patterns/template.ts). */
export function finalPatterns(pipes: readonly { kind: string }[]): PatternsPipe | undefined {
  const last = pipes[pipes.length - 1];
  return last?.kind === 'patterns' ? (last as PatternsPipe) : undefined;
}
