import type { Parser } from '../parser.js';
import type { Schema } from '../schema.js';
import { ident } from '../sql.js';
import type { StageBuilder } from '../stages.js';
import type { PipeDef } from './pipe.js';

/**
 * `top [N] f[, g]` and `rare [N] f[, g]`: the N (default 10) most / least common value combinations
 * with `count` and `percent` (of the rows that have the fields).
 */
export interface TopPipe {
  kind: 'top' | 'rare';
  limit?: number;
  fields: string[];
}

function parseTop(kind: 'top' | 'rare') {
  return (p: Parser): TopPipe => {
    let limit: number | undefined;
    if (p.intAhead()) limit = p.positiveInt('a row count');
    else if (p.acceptKeyword('limit')) {
      p.expectOp('=', 'expr');
      limit = p.positiveInt('a row count');
    }
    return { kind, limit, fields: p.fieldList('a field name') };
  };
}

function compileTop(n: TopPipe, b: StageBuilder): void {
  b.markMatched();
  const schema: Schema = new Map();
  const cols = n.fields.map((f) => {
    const c = b.col(f);
    schema.set(f, c.type);
    return c;
  });
  schema.set('count', 'num');
  schema.set('percent', 'num');
  const dir = n.kind === 'top' ? 'DESC' : 'ASC';
  const select = [...cols.map((c, i) => `${c.sql} AS ${ident(n.fields[i])}`), 'count(*) AS "count"', '100.0 * count(*) / sum(count(*)) OVER () AS "percent"'];
  const where = cols.map((c) => `${c.sql} IS NOT NULL`).join(' AND ');
  const groups = n.fields.map((_, i) => i + 1).join(', ');
  const tie = n.fields.map((f) => `${ident(f)} ASC`).join(', ');
  b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where} GROUP BY ${groups} ORDER BY "count" ${dir}, ${tie} LIMIT ${n.limit ?? 10}`, schema);
  b.order = [{ sql: '"count"', desc: n.kind === 'top', cols: ['count'] }, ...n.fields.map((f) => ({ sql: ident(f), desc: false, cols: [f] }))];
  b.mode = 'table';
}

const printTop = (n: TopPipe): string => `${n.kind} ${n.limit !== undefined ? `${n.limit} ` : ''}${n.fields.join(', ')}`;

export const topPipe: PipeDef<TopPipe> = {
  name: 'top',
  parse: parseTop('top'),
  print: printTop,
  reads: (n) => n.fields,
  writes: () => 'all',
  compile: compileTop,
};

export const rarePipe: PipeDef<TopPipe> = { ...topPipe, name: 'rare', parse: parseTop('rare') };
