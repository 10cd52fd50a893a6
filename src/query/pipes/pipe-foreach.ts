import { doc } from '../doc.js';
import { describe, type Token } from '../lexer.js';
import type { Parser, Subquery } from '../parser-api.js';
import { compileExpr, exprFields } from '../expr/expr.js';
import { isExtractable, textValueSql } from '../extract/auto-fields.js';
import { pushExtracted } from '../extract/extract-stage.js';
import { unify } from '../expr/coerce.js';
import { wildcardRegex, type ColRef } from '../schema.js';
import { ident } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { BARE_LIST_NAME } from './field-names.js';
import type { EvalPipe } from './pipe-eval.js';
import type { PipeDef } from './pipe.js';

/**
 * `foreach <pattern>… [fieldstr=…] [matchstr=…] [matchseg1=…] [matchseg2=…] [matchseg3=…] [<eval …>]`
 * (Splunk's foreach, multifield mode): the bracketed template runs once for each field of the rows
 * whose name matches a pattern, with `<<FIELD>>` replaced by the name, `<<MATCHSTR>>` by the part
 * the pattern's one `*` matched and `<<MATCHSEGn>>` by what its n-th `*` matched, as text, before
 * the template is read. The template holds eval commands only (Splunk allows streaming commands;
 * eval is what foreach is used with).
 */
export interface ForeachPipe {
  kind: 'foreach';
  patterns: string[];
  /** The template as written between the brackets. */
  template: string;
  /** The placeholders: fieldstr, matchstr, matchseg1..3, given or Splunk's defaults. */
  marks: Marks;
}

interface Marks {
  fieldstr: string;
  matchstr: string;
  matchseg1: string;
  matchseg2: string;
  matchseg3: string;
}

const DEFAULT_MARKS: Marks = {
  fieldstr: '<<FIELD>>',
  matchstr: '<<MATCHSTR>>',
  matchseg1: '<<MATCHSEG1>>',
  matchseg2: '<<MATCHSEG2>>',
  matchseg3: '<<MATCHSEG3>>',
};

/** Fields svc has that Splunk's results do not (message is Splunk's `_raw`): a pattern never matches them. */
const NOT_SPLUNK_FIELDS = new Set(['message', 'env']);

/** The template with every placeholder replaced (one pass, so a replacement is never read again). */
function substitute(template: string, marks: Marks, values: Partial<Record<keyof Marks, string>>): string {
  const used = (Object.keys(values) as (keyof Marks)[]).filter((k) => marks[k] !== '');
  if (used.length === 0) return template;
  const byMark = new Map(used.map((k) => [marks[k], values[k]!]));
  const re = new RegExp(
    [...byMark.keys()]
      .sort((a, b) => b.length - a.length)
      .map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return template.replace(re, (m) => byMark.get(m)!);
}

/** Which placeholders a template uses. */
function usedMarks(template: string, marks: Marks): (keyof Marks)[] {
  return (Object.keys(marks) as (keyof Marks)[]).filter((k) => marks[k] !== '' && template.includes(marks[k]));
}

const OPTIONS = new Set(Object.keys(DEFAULT_MARKS));

function parseForeach(p: Parser, cmd: Token): ForeachPipe {
  const marks: Marks = { ...DEFAULT_MARKS };
  const given = new Set<string>();
  const patterns: string[] = [];
  for (;;) {
    const t = p.peek('search');
    if (t.kind === 'eof' || (t.kind === 'op' && t.text === '|'))
      throw p.unexpected(t, 'missing the template in [brackets]');
    if (t.kind === 'word' && t.text.startsWith('[')) break;
    p.next('search');
    const name = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (t.kind === 'word' && (OPTIONS.has(name) || name === 'mode') && p.acceptOp('=', 'search')) {
      if (given.has(name)) throw p.fail(`${describe(t)} is given twice`, t);
      given.add(name);
      const v = p.next('search');
      if ((v.kind !== 'word' && v.kind !== 'string') || (v.kind === 'word' && v.text.startsWith('[')))
        throw p.unexpected(v, `missing a value after "${name}="`);
      if (name === 'mode') {
        if (v.text.toLowerCase() !== 'multifield')
          throw p.fail(`foreach mode=${v.text} is not supported: svc runs foreach over fields (mode=multifield)`, v);
        continue;
      }
      if (v.text === '') throw p.fail(`missing text after "${name}="`, v);
      marks[name as keyof Marks] = v.text;
      continue;
    }
    if (t.kind === 'word' && /^(itemstr|iterstr)$/i.test(t.text))
      throw p.fail(`foreach ${name}= is not supported: svc runs foreach over fields (mode=multifield)`, t);
    const names = t.kind === 'string' ? [t.text] : t.kind === 'word' ? t.text.split(',').filter(Boolean) : [];
    if (t.kind !== 'word' && t.kind !== 'string') throw p.unexpected(t, 'missing a field pattern or the template');
    for (const f of names)
      if (f === '' || (t.kind === 'word' && !BARE_LIST_NAME.test(f)))
        throw p.fail(`unexpected ${JSON.stringify(f)}: missing a field name or pattern`, t);
    patterns.push(...names);
  }
  if (patterns.length === 0) throw p.fail('foreach takes field names or patterns before its template', cmd);
  const open = p.peek('search');
  const raw = p.bracketed('foreach template');
  // kept as written but for the spaces around it, which the canonical form drops
  const text = raw.text.trim();
  const start = raw.start + raw.text.indexOf(text);
  const used = usedMarks(text, marks);
  for (const k of used) {
    if (k === 'fieldstr') continue;
    const want = k === 'matchstr' ? 1 : Number(k.slice(-1));
    const bad = patterns.find((x) =>
      k === 'matchstr' ? x.split('*').length - 1 !== 1 : x.split('*').length - 1 < want,
    );
    if (bad !== undefined)
      throw p.fail(
        k === 'matchstr'
          ? `${marks[k]} stands for what the pattern's one "*" matched: ${JSON.stringify(bad)} has ${bad.split('*').length - 1}`
          : `${marks[k]} stands for what the pattern's ${['first', 'second', 'third'][want - 1]} "*" matched: ${JSON.stringify(bad)} has fewer`,
        open,
      );
  }
  // each placeholder as a name of its own length, so that errors point at the right place
  const dummies = Object.fromEntries(used.map((k) => [k, 'x'.padEnd(marks[k].length, '_')]));
  const pipes = p.pipelineAt('foreach template', substitute(text, marks, dummies), start);
  checkEvalOnly(pipes, (kind) => {
    const at = new RegExp(`(^|\\|)\\s*(${kind})\\b`, 'i').exec(text);
    return p.fail(
      `foreach runs eval commands only, not ${kind}: svc substitutes the field names into eval`,
      at ? { ...open, pos: start + at.index + at[0].length - at[2].length, raw: at[2] } : open,
    );
  });
  return { kind: 'foreach', patterns, template: text, marks };
}

function checkEvalOnly(pipes: Subquery['pipes'], fail: (kind: string) => Error): asserts pipes is EvalPipe[] {
  const other = pipes.find((x) => x.kind !== 'eval');
  if (other) throw fail(other.kind);
}

/** The field names the template runs for, in the order of their names, each with the pattern it matched and what each `*` matched. */
function matchedFields(n: ForeachPipe, b: StageBuilder): { name: string; segs: string[] }[] {
  const out: { name: string; segs: string[] }[] = [];
  const names = [...b.schema.keys()].filter((f) => f !== '__ord' && !NOT_SPLUNK_FIELDS.has(f)).sort();
  for (const name of names) {
    for (const pat of n.patterns) {
      // Splunk's wildcards leave out the internal fields (`_time`) unless the pattern names them
      if (name.startsWith('_') && !pat.startsWith('_')) continue;
      const m = wildcardRegex(pat, true).exec(name);
      if (!m) continue;
      out.push({ name, segs: m.slice(1) });
      break;
    }
  }
  return out;
}

/** An assignment's value where the field's flag holds, the field's own value elsewhere, typed as both allow. */
function guarded(flag: string, c: ColRef, old: ColRef | undefined): ColRef {
  if (!old) return { sql: `CASE WHEN ${flag} THEN ${c.sql} END`, type: c.type };
  const [then, otherwise] = unify([c, old]).sqls;
  return { sql: `CASE WHEN ${flag} THEN ${then} ELSE ${otherwise} END`, type: unify([c, old]).type };
}

/**
 * The fields a template reads that the rows lack, found in the message while the rows are still
 * events (`foreach x* [eval m=if(method="GET", …)]`): compile.ts finds those every pipe names
 * before the pipes run, but a template's names are only known once its fields are substituted.
 */
function extractRead(pipes: EvalPipe[], b: StageBuilder): void {
  if (b.mode !== 'events' || !b.schema.has('message')) return;
  const defined = new Set<string>();
  const found = new Map<string, string>();
  for (const e of pipes)
    for (const a of e.assignments) {
      for (const f of exprFields(a.expr))
        if (!defined.has(f) && !b.schema.has(f) && !found.has(f) && isExtractable(f))
          found.set(
            f,
            textValueSql(f, (n) => b.col(n)),
          );
      defined.add(a.name);
    }
  if (found.size > 0) pushExtracted(b, found);
}

function compileForeach(n: ForeachPipe, b: StageBuilder): void {
  if (!b.parsePipes) throw new Error('BUG: foreach outside compile()');
  const fields = matchedFields(n, b);
  if (fields.length === 0) return;
  // A field is one of the results' fields when some row has a value for it (Splunk's results hold
  // no field without one); the stored columns span every event of the store, so ask the rows.
  const flags = fields.map((_, i) => `__fe${i}`);
  if (flags.some((f) => b.schema.has(f))) throw pipeError('foreach', 'a column may not be named __fe<N>');
  b.setColumns(fields.map((f, i) => ({ name: flags[i], sql: `count(${ident(f.name)}) OVER () > 0`, type: 'bool' })));
  fields.forEach((f, i) => {
    const text = substitute(n.template, n.marks, {
      fieldstr: f.name,
      matchstr: f.segs.length === 1 ? f.segs[0] : '',
      matchseg1: f.segs[0] ?? '',
      matchseg2: f.segs[1] ?? '',
      matchseg3: f.segs[2] ?? '',
    });
    let pipes: Subquery['pipes'];
    try {
      pipes = b.parsePipes!(text);
    } catch (e) {
      throw pipeError(
        'foreach',
        `the template for field ${JSON.stringify(f.name)} reads "${text.trim()}": ${(e as Error).message}`,
      );
    }
    checkEvalOnly(pipes, (kind) => pipeError('foreach', `runs eval commands only, not ${kind}`));
    extractRead(pipes, b);
    for (const e of pipes)
      for (const a of e.assignments) {
        if (a.name.startsWith('__fe') || a.name === '__ord' || a.name === '_time')
          throw pipeError('foreach', `its template cannot set ${a.name}`);
        const c = compileExpr(a.expr, { schema: b.schema, nowMs: b.nowMs });
        const old = b.schema.has(a.name) ? b.col(a.name) : undefined;
        b.setColumns([{ name: a.name, ...guarded(flags[i], c, old) }]);
      }
  });
  const schema = new Map([...b.schema].filter(([k]) => !flags.includes(k)));
  b.push(`SELECT * EXCLUDE (${flags.join(', ')}) FROM ${b.cur}`, schema);
}

export const foreachPipe: PipeDef<ForeachPipe> = {
  name: 'foreach',
  doc: doc(
    'foreach <field pattern>… [fieldstr=<s>] [matchstr=<s>] [matchseg1=<s>]… [eval <field>=<expr>…]',
    'Runs the eval template once for each field whose name matches, with <<FIELD>>, <<MATCHSTR>> and <<MATCHSEG1>>… replaced by the name and what its wildcards matched.',
    '* | stats avg(bytes) as avg_bytes, max(bytes) as max_bytes by host | foreach *_bytes [eval <<FIELD>>=round(<<FIELD>> / 1024, 1)]',
  ),
  parse: parseForeach,
  print: (n) => {
    const opts = (Object.keys(DEFAULT_MARKS) as (keyof Marks)[])
      .filter((k) => n.marks[k] !== DEFAULT_MARKS[k])
      .map((k) => `${k}=${JSON.stringify(n.marks[k])}`);
    return [
      'foreach',
      ...n.patterns.map((x) => (BARE_LIST_NAME.test(x) ? x : JSON.stringify(x))),
      ...opts,
      `[${n.template}]`,
    ].join(' ');
  },
  // the template may read any field matching a pattern, and others it names
  reads: () => '*',
  // the fields it sets are only known once the patterns meet the rows; none of them replaces the rows
  writes: () => [],
  compile: compileForeach,
};
