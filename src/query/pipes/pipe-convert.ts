import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { FUNCTIONS } from '../expr/functions.js';
import { toStr } from '../expr/coerce.js';
import { expandPattern, type ColRef, type ColType } from '../schema.js';
import { asNumber, asText, str } from '../sql.js';
import { checkDistinct, pipeError, type StageBuilder } from '../stages.js';
import { BARE_LIST_NAME, printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';

/** Splunk's default `timeformat` of convert (not the locale's). */
export const CONVERT_TIMEFORMAT = '%m/%d/%Y %H:%M:%S';

const FNS = ['auto', 'ctime', 'dur2sec', 'memk', 'mktime', 'mstime', 'none', 'num', 'rmcomma', 'rmunit'] as const;
type ConvertFn = (typeof FNS)[number];

export interface ConvertItem {
  fn: ConvertFn;
  /** The field, `*` wildcards allowed. */
  field: string;
  as?: string;
}

/**
 * `convert [timeformat="…"] <fn>(<field>) [as <name>][, …]` (Splunk's convert): converts field
 * values, in place or into `as <name>`. Splunk's rule for a value a function cannot convert is
 * kept: it is left as it is (in place) or gives no value (under `as`); `num()` removes it, and
 * `auto()` converts a field only when every value of it converts (else leaves it whole). `none()`
 * keeps fields out of the wildcard conversions of the same command. Times are in UTC.
 */
export interface ConvertPipe {
  kind: 'convert';
  timeformat?: string;
  items: ConvertItem[];
}

function parseItem(p: Parser): ConvertItem {
  const f = p.next('expr');
  const fn = f.kind === 'ident' ? (f.text.toLowerCase() as ConvertFn) : undefined;
  if (fn === undefined || !FNS.includes(fn))
    throw p.fail(
      `unexpected ${describe(f)}: missing a convert function (${FNS.slice(0, -1).join(', ')} or ${FNS[FNS.length - 1]})`,
      f,
    );
  p.expectOp('(', 'expr');
  const a = p.next('search');
  if (!(a.kind === 'string' ? a.text !== '' : a.kind === 'word' && BARE_LIST_NAME.test(a.text)))
    throw p.unexpected(a, `missing a field inside "${fn}(…)"`);
  p.expectOp(')', 'search');
  const item: ConvertItem = { fn, field: a.text };
  const asTok = p.peek('expr');
  if (p.acceptKeyword('as')) {
    // expr mode: `as LastTime, ctime(…)` ends the name at the comma
    const t = p.next('expr');
    if (!(t.kind === 'string' ? t.text !== '' : t.kind === 'ident' && BARE_LIST_NAME.test(t.text)))
      throw p.unexpected(t, 'missing a new name after "as"');
    if (t.text.includes('*') || item.field.includes('*'))
      throw p.fail(`convert … as takes one field and one name, without wildcards`, asTok);
    if (fn === 'none') throw p.fail('none() takes no "as": it keeps fields out of the conversions', asTok);
    item.as = t.text;
  }
  return item;
}

function parseConvert(p: Parser): ConvertPipe {
  let timeformat: string | undefined;
  if (p.acceptKeyword('timeformat')) {
    p.expectOp('=', 'expr');
    const t = p.next('search');
    if (t.kind !== 'string' && t.kind !== 'word') throw p.unexpected(t, 'missing a time format such as "%Y-%m-%d"');
    timeformat = t.text;
  }
  const items: ConvertItem[] = [];
  while (!p.atPipeEnd()) {
    if (items.length > 0) p.acceptOp(',', 'expr');
    items.push(parseItem(p));
  }
  if (items.length === 0) throw p.unexpected(p.peek('search'), 'missing a conversion such as ctime(field)');
  return { kind: 'convert', timeformat, items };
}

function printConvert(n: ConvertPipe): string {
  const tf = n.timeformat === undefined ? '' : `timeformat=${quoteString(n.timeformat)} `;
  const items = n.items.map((i) => `${i.fn}(${printListName(i.field)})${i.as ? ` as ${printListName(i.as)}` : ''}`);
  return `convert ${tf}${items.join(', ')}`;
}

const NUMBER_RE = `[-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?`;

/** A DOUBLE as text the way Splunk shows a number: whole numbers without `.0`. */
const numberText = (d: string) =>
  `(CASE WHEN ${d} = trunc(${d}) AND abs(${d}) < 1e15 THEN CAST(CAST(${d} AS BIGINT) AS VARCHAR) ELSE CAST(${d} AS VARCHAR) END)`;

/** The converted value (NULL when it does not convert) and its type. */
function converted(
  fn: Exclude<ConvertFn, 'none' | 'auto'>,
  col: ColRef,
  timeformat: string,
): { sql: string; type: ColType } {
  const text = toStr(col);
  const fmt: ColRef = { sql: str(timeformat), type: 'str' };
  const group = (re: string, i: number) => `regexp_extract(${text}, ${str(re)}, ${i})`;
  const part = (re: string, i: number) => `TRY_CAST(nullif(${group(re, i)}, '') AS DOUBLE)`;
  switch (fn) {
    case 'ctime':
      return { sql: FUNCTIONS.strftime.sql([col, fmt], 0), type: 'str' };
    case 'mktime':
      return { sql: FUNCTIONS.strptime.sql([{ sql: text, type: 'str' }, fmt], 0), type: 'num' };
    case 'num':
      return { sql: col.type === 'num' ? col.sql : asNumber(`trim(${text})`), type: 'num' };
    case 'rmcomma':
      return { sql: asNumber(`replace(trim(${text}), ',', '')`), type: 'num' };
    case 'rmunit':
      return { sql: part(`^\\s*(${NUMBER_RE})`, 1), type: 'num' };
    case 'dur2sec': {
      // [D+]HH:MM:SS
      const re = '^\\s*(?:([0-9]+)\\+)?([0-9]+):([0-9]+):([0-9]+(?:\\.[0-9]*)?)\\s*$';
      const ok = `regexp_full_match(${text}, ${str(re)})`;
      return {
        sql: `(CASE WHEN ${ok} THEN coalesce(${part(re, 1)}, 0) * 86400 + ${part(re, 2)} * 3600 + ${part(re, 3)} * 60 + ${part(re, 4)} END)`,
        type: 'num',
      };
    }
    case 'mstime': {
      // [MM:]SS.SSS
      const re = '^\\s*(?:([0-9]+):)?([0-9]+(?:\\.[0-9]*)?)\\s*$';
      const ok = `regexp_full_match(${text}, ${str(re)})`;
      return { sql: `(CASE WHEN ${ok} THEN coalesce(${part(re, 1)}, 0) * 60 + ${part(re, 2)} END)`, type: 'num' };
    }
    case 'memk': {
      // a number of kilobytes, or with a unit k, m or g (1024-based)
      const re = `^\\s*(${NUMBER_RE})\\s*([kKmMgG]?)\\s*$`;
      const unit = `lower(${group(re, 2)})`;
      return {
        sql: `(${part(re, 1)} * CASE ${unit} WHEN 'm' THEN 1024 WHEN 'g' THEN 1048576 ELSE 1 END)`,
        type: 'num',
      };
    }
  }
}

function compileConvert(n: ConvertPipe, b: StageBuilder): void {
  const timeformat = n.timeformat ?? CONVERT_TIMEFORMAT;
  const excluded = new Set(n.items.filter((i) => i.fn === 'none').flatMap((i) => expandPattern(b.schema, i.field)));
  const cols: { name: string; sql: string; type: ColType }[] = [];
  for (const item of n.items) {
    if (item.fn === 'none') continue;
    const wild = item.field.includes('*');
    // a wildcard leaves out the excluded fields and, as Splunk's do, the internal ones (_time)
    const fields = expandPattern(b.schema, item.field).filter((f) => !(wild && (excluded.has(f) || f.startsWith('_'))));
    for (const field of fields) {
      const col = b.col(field);
      if (col.sql === 'NULL') continue; // Splunk converts only fields the rows have
      if (item.fn === 'auto') {
        if (col.type === 'num') continue;
        // the whole field or none of it (Splunk): converted only when every value it has is a number
        const d = asNumber(`trim(${toStr(col)})`);
        const all = `bool_and(${col.sql} IS NULL OR ${d} IS NOT NULL) OVER ()`;
        cols.push({
          name: item.as ?? field,
          sql: `(CASE WHEN ${all} THEN ${numberText(d)} ELSE ${toStr(col)} END)`,
          type: 'any',
        });
        continue;
      }
      const c = converted(item.fn, col, timeformat);
      if (item.as !== undefined || item.fn === 'num') cols.push({ name: item.as ?? field, sql: c.sql, type: c.type });
      // in place, a value that does not convert stays as it was
      else
        cols.push({
          name: field,
          sql: `coalesce(${c.type === 'num' ? numberText(c.sql) : c.sql}, ${asText(col.sql)})`,
          type: c.type === 'str' ? 'str' : 'any',
        });
    }
  }
  // events keep their time: a converted _time (text, or seconds) would leave them without one
  if (cols.some((c) => c.name === '_time'))
    throw pipeError('convert', 'cannot convert _time in place: name the result with as (ctime(_time) as t)');
  checkDistinct(
    'convert',
    cols.map((c) => c.name),
    'convert each field once',
  );
  if (cols.length === 0) return;
  // a converted column the current order reads keeps its order as a row number
  const replaced = new Set(cols.map((c) => c.name));
  const ord = b.keepOrder(new Set([...b.schema.keys()].filter((k) => !replaced.has(k))));
  if (ord) b.push(`SELECT *${ord} FROM ${b.cur}`);
  b.setColumns(cols);
}

export const convertPipe: PipeDef<ConvertPipe> = {
  name: 'convert',
  doc: doc(
    'convert [timeformat="<format>"] <fn>(<field>) [as <name>][, …]',
    'Converts field values (ctime, mktime, dur2sec, mstime, memk, num, rmcomma, rmunit, auto, none), in place or into a new field.',
    '* | stats max(_time) as lasttime by host | convert timeformat="%Y-%m-%d %H:%M:%S" ctime(lasttime) as LastTime',
  ),
  parse: parseConvert,
  print: printConvert,
  reads: (n) => (n.items.some((i) => i.field.includes('*')) ? '*' : n.items.map((i) => i.field)),
  writes: (n) => n.items.filter((i) => i.fn !== 'none').map((i) => i.as ?? i.field),
  compile: compileConvert,
};
