import { doc } from '../doc.js';
import type { Parser } from '../parser-api.js';
import { describe } from '../lexer.js';
import type { Schema } from '../schema.js';
import { ident } from '../sql.js';
import { ascending, checkDistinct, type StageBuilder } from '../stages.js';
import { printListNames } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { checkGroupable } from './aggregations.js';

/**
 * `top [N] f[, g] [by h]` and `rare [N] f[, g] [by h]`: the N (default 10) most / least common value
 * combinations with `count` and `percent` (of the rows that have the fields); with `by`, the N of
 * each group, percent within the group.
 */
export interface TopPipe {
  kind: 'top' | 'rare';
  limit?: number;
  fields: string[];
  by: string[];
}

function parseTop(kind: 'top' | 'rare') {
  return (p: Parser): TopPipe => {
    let limit: number | undefined;
    const readLimit = () => {
      const t = p.peek('expr');
      if (!p.acceptKeyword('limit')) return;
      if (limit !== undefined) throw p.fail(`${describe(t)} is given twice`, t);
      p.expectOp('=', 'expr');
      limit = p.positiveInt('a row count');
    };
    if (p.intAhead()) limit = p.positiveInt('a row count');
    else readLimit();
    // Splunk takes limit= after the fields too: `top uri limit=5`, `top uri by host limit=5`
    const fields = p.fieldList('a field name', { stop: ['by', 'limit'] });
    readLimit();
    const by = p.acceptKeyword('by') ? p.fieldList('a field after "by"', { stop: ['limit'] }) : [];
    readLimit();
    return { kind, limit, fields, by };
  };
}

function compileTop(n: TopPipe, b: StageBuilder): void {
  b.markMatched();
  const names = [...n.by, ...n.fields];
  checkGroupable(n.kind, b, names);
  checkDistinct(
    n.kind,
    [...names, 'count', 'percent'],
    'name each field once, and copy a field called count or percent under another name first (eval), as those are its own columns',
  );
  const schema: Schema = new Map();
  const cols = names.map((f) => {
    const c = b.col(f);
    schema.set(f, c.type);
    return c;
  });
  schema.set('count', 'num');
  schema.set('percent', 'num');
  const dir = n.kind === 'top' ? 'DESC' : 'ASC';
  const byIdents = n.by.map(ident);
  const partition = byIdents.length ? `PARTITION BY ${byIdents.join(', ')}` : '';
  const select = [...cols.map((c, i) => `${c.sql} AS ${ident(names[i])}`), 'count(*) AS "count"'];
  const where = cols.map((c) => `${c.sql} IS NOT NULL`).join(' AND ');
  const groups = names.map((_, i) => i + 1).join(', ');
  const tie = n.fields.map((f) => `${ident(f)} ASC`).join(', ');
  const limit = n.limit ?? 10;
  // counted per combination first, then ranked within each `by` group (one group without `by`)
  const counted = `SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where} GROUP BY ${groups}`;
  const ranked =
    `SELECT *, 100.0 * "count" / sum("count") OVER (${partition}) AS "percent", ` +
    `row_number() OVER (${partition} ORDER BY "count" ${dir}, ${tie}) AS "_rank" FROM (${counted})`;
  const order = [...byIdents.map((f) => `${f} ASC`), `"count" ${dir}`, tie].join(', ');
  b.push(`SELECT * EXCLUDE ("_rank") FROM (${ranked}) WHERE "_rank" <= ${limit} ORDER BY ${order}`, schema);
  b.order = [...ascending(n.by), { sql: '"count"', desc: n.kind === 'top', cols: ['count'] }, ...ascending(n.fields)];
  b.mode = 'table';
}

const printTop = (n: TopPipe): string =>
  `${n.kind} ${n.limit !== undefined ? `${n.limit} ` : ''}${printListNames(n.fields)}${n.by.length ? ` by ${printListNames(n.by)}` : ''}`;

export const topPipe: PipeDef<TopPipe> = {
  name: 'top',
  doc: doc(
    'top [N] <field>[, <field>…] [by <field>, …]',
    'Lists the N (default 10) most common values with their count and percent, within each group when by is given.',
    '* | top 5 status',
  ),
  parse: parseTop('top'),
  print: printTop,
  reads: (n) => [...n.by, ...n.fields],
  writes: () => 'all',
  compile: compileTop,
};

export const rarePipe: PipeDef<TopPipe> = {
  ...topPipe,
  name: 'rare',
  doc: doc(
    'rare [N] <field>[, <field>…] [by <field>, …]',
    'Lists the N (default 10) least common values with their count and percent, within each group when by is given.',
    '* | rare uri',
  ),
  parse: parseTop('rare'),
};
