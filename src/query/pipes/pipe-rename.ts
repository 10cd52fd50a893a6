import { doc } from '../doc.js';
import type { Parser } from '../parser-api.js';
import { RAW, wildcardRegex, type Schema } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/**
 * `rename a as b[, c as d]`: gives fields new names, left to right; a name that already exists is
 * replaced, a field that is absent is left alone (as in Splunk). `*` in both names renames every
 * matching field (`rename id.* as conn_*`), with as many `*` on each side.
 */
export interface RenamePipe {
  kind: 'rename';
  pairs: { from: string; to: string }[];
}

/**
 * The names come as one list cut by `as`: `a as b, c as d` reads [a] as [b, c] as [d], so every
 * middle run holds one pair's new name and the next pair's old name.
 */
function parseRename(p: Parser): RenamePipe {
  const runs: string[][] = [p.listItems('a field name to rename', { stop: ['as'] }).map((i) => i.name)];
  while (p.acceptKeyword('as')) runs.push(p.listItems('a new name after "as"', { stop: ['as'] }).map((i) => i.name));
  const at = p.peek('search');
  if (runs.length < 2)
    throw p.fail(
      `unexpected ${at.kind === 'eof' ? 'end of query' : JSON.stringify(at.raw)}: missing "as" and a new name`,
      at,
    );
  const pairs: RenamePipe['pairs'] = [];
  for (let i = 0; i + 1 < runs.length; i++) {
    const last = i + 2 === runs.length;
    const from = i === 0 ? runs[0] : runs[i].slice(1);
    const to = runs[i + 1];
    if (from.length !== 1 || to.length !== (last ? 1 : 2)) {
      throw p.fail(
        `rename takes pairs "<field> as <new name>" separated by commas, not ${JSON.stringify(runs.flat().join(' '))}`,
        at,
      );
    }
    pairs.push({ from: from[0], to: to[0] });
  }
  for (const { from, to } of pairs) {
    if (count(from, '*') !== count(to, '*')) throw p.fail(`"${from} as ${to}": both names need as many "*"`, at);
  }
  return { kind: 'rename', pairs };
}

const count = (s: string, c: string) => s.split(c).length - 1;

/** The renames one pair makes against the current columns: literal, or every match of a pattern. */
function renamesOf(from: string, to: string, schema: Schema): [string, string][] {
  // `rename _raw as text`: `_raw` is the message until a pipe makes a column of that name (schema.ts)
  if (from === RAW && !schema.has(RAW) && schema.has('message')) return [['message', to]];
  if (!from.includes('*')) return schema.has(from) ? [[from, to]] : [];
  const re = wildcardRegex(from, true);
  const out: [string, string][] = [];
  for (const name of schema.keys()) {
    const m = re.exec(name);
    if (!m) continue;
    let k = 1;
    out.push([name, to.replace(/\*/g, () => m[k++])]);
  }
  return out;
}

function compileRename(n: RenamePipe, b: StageBuilder): void {
  for (const pair of n.pairs) {
    const moves = renamesOf(pair.from, pair.to, b.schema).filter(([f, t]) => f !== t);
    if (moves.length === 0) continue;
    // `rename host* as *` over `host`: the pattern's `*` matched nothing, and a field needs a name
    const nameless = moves.find(([, t]) => t === '');
    if (nameless) throw pipeError('rename', `"${pair.from} as ${pair.to}" would leave "${nameless[0]}" without a name`);
    const targets = new Set(moves.map(([, t]) => t));
    if (targets.size !== moves.length)
      throw pipeError('rename', `"${pair.from} as ${pair.to}" would give two fields the same name`);
    const moved = new Map(moves);
    const schema: Schema = new Map();
    const select: string[] = [];
    // a renamed field keeps its place among the columns (`stats count by host | rename count as n`: host, n)
    for (const [name, type] of b.schema) {
      const to = moved.get(name);
      if (to !== undefined) {
        schema.set(to, type);
        select.push(`${ident(name)} AS ${ident(to)}`);
      } else if (!targets.has(name)) {
        schema.set(name, type);
        select.push(ident(name));
      }
    }
    // an order that reads a renamed or replaced column survives as a row number (`__ord`)
    const ord = b.keepOrder(new Set([...schema.keys()].filter((k) => !targets.has(k))));
    b.push(`SELECT ${select.join(', ')}${ord} FROM ${b.cur}`, schema);
  }
}

export const renamePipe: PipeDef<RenamePipe> = {
  name: 'rename',
  doc: doc(
    'rename <field> as <name>[, <field> as <name>…]',
    'Gives fields new names, left to right; a * in both names renames every matching field.',
    '* | rename id.orig_h as src, id.* as conn_*',
  ),
  parse: parseRename,
  print: (n) => `rename ${n.pairs.map((x) => `${printListName(x.from)} as ${printListName(x.to)}`).join(', ')}`,
  reads: (n) => (n.pairs.some((x) => x.from.includes('*')) ? '*' : n.pairs.map((x) => x.from)),
  writes: (n) => n.pairs.map((x) => x.to),
  compile: compileRename,
};
