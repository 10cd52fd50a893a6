import { expandPattern, type Schema } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';

/** Expands wildcard names against the current stage; literal names are kept even when absent. */
export function expandNames(b: StageBuilder, names: string[]): string[] {
  const out: string[] = [];
  for (const n of names) for (const e of expandPattern(b.schema, n)) if (!out.includes(e)) out.push(e);
  return out;
}

/** Pushes a stage keeping exactly `names` in that order (absent ones as NULL), keeping the order. */
export function project(b: StageBuilder, names: string[], pipe: string): void {
  if (names.length === 0) throw pipeError(pipe, 'no field would be left');
  const keep = new Set(names);
  const ord = b.keepOrder(keep);
  const schema: Schema = new Map();
  const select = names.map((n) => {
    const c = b.col(n);
    schema.set(n, c.type);
    return c.sql === ident(n) ? c.sql : `${c.sql} AS ${ident(n)}`;
  });
  b.push(`SELECT ${select.join(', ')}${ord} FROM ${b.cur}`, schema);
}
