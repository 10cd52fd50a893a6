import { doc, type ConstructDoc } from '../doc.js';
import type { ColRef, ColType } from '../schema.js';
import { toList, toNum, toStr } from './coerce.js';

/**
 * Splunk's multivalue functions over svc's multivalue values: DuckDB lists of text (what
 * `values()`, `list()`, `split()`, `spath … {}` and `rex max_match=` give). A single value counts
 * as a list of one and null as no value, as in Splunk; a function whose result would hold no value
 * gives null.
 */
interface MvFnDef {
  min: number;
  max: number;
  type: ColType;
  sql(args: ColRef[]): string;
  typeOf?(args: ColRef[]): ColType;
  doc: ConstructDoc;
}

export { toList };

/** A list with no element as null (Splunk has no empty multivalue). */
const orNull = (list: string) => `CASE WHEN len(${list}) = 0 THEN NULL ELSE ${list} END`;

/** A 0-based Splunk index (negative from the end) as a 1-based DuckDB one; 0 (no element) when outside. */
function position(list: string, index: string): string {
  const i = `CAST(${index} AS BIGINT)`;
  return `CASE WHEN ${i} >= 0 THEN ${i} + 1 ELSE len(${list}) + ${i} + 1 END`;
}

function mvindex(a: ColRef[]): string {
  const l = toList(a[0]);
  const start = position(l, toNum(a[1]));
  if (a.length === 2) return `CASE WHEN (${start}) BETWEEN 1 AND len(${l}) THEN ${l}[${start}] END`;
  const end = position(l, toNum(a[2]));
  return `CASE WHEN (${start}) BETWEEN 1 AND len(${l}) AND (${end}) >= (${start}) THEN list_slice(${l}, ${start}, least(${end}, len(${l}))) END`;
}

export const MV_FUNCTIONS: Record<string, MvFnDef> = {
  split: {
    min: 2,
    max: 2,
    type: 'list',
    sql: (a) => `string_split(${toStr(a[0])}, ${toStr(a[1])})`,
    doc: doc('split(s, delim)', 'The text cut at each delimiter, as a multivalue.', '* | eval parts=split(uri, "/")'),
  },
  mvcount: {
    min: 1,
    max: 1,
    type: 'num',
    sql: (a) => `len(${toList(a[0])})`,
    doc: doc(
      'mvcount(mv)',
      'The number of values of a multivalue (1 for a single value, null for none).',
      '* | eval n=mvcount(split(uri, "/"))',
    ),
  },
  mvindex: {
    min: 2,
    max: 3,
    type: 'str',
    sql: mvindex,
    // one position gives one value, a range a multivalue
    typeOf: (a) => (a.length === 2 ? 'str' : 'list'),
    doc: doc(
      'mvindex(mv, start[, end])',
      'The value at a 0-based position (negative counts from the end), or the values from start to end inclusive.',
      '* | eval top=mvindex(split(uri, "/"), 1)',
    ),
  },
  mvjoin: {
    min: 2,
    max: 2,
    type: 'str',
    sql: (a) => `array_to_string(${toList(a[0])}, ${toStr(a[1])})`,
    doc: doc(
      'mvjoin(mv, delim)',
      'The values joined into one text with the delimiter.',
      '* | eval path=mvjoin(split(uri, "/"), ">")',
    ),
  },
  mvappend: {
    min: 1,
    max: 64,
    type: 'list',
    sql: (a) => orNull(`list_concat(${a.map((r) => `coalesce(${toList(r)}, CAST([] AS VARCHAR[]))`).join(', ')})`),
    doc: doc(
      'mvappend(a, …)',
      'One multivalue holding the values of every argument in order (nulls skipped).',
      '* | eval hosts=mvappend(src, dest)',
    ),
  },
  mvdedup: {
    min: 1,
    max: 1,
    type: 'list',
    sql: (a) => {
      const l = toList(a[0]);
      return `list_filter(${l}, lambda __v, __i: list_position(${l}, __v) = __i)`;
    },
    doc: doc(
      'mvdedup(mv)',
      'The values without repeats, first occurrence kept, in order.',
      '* | eval u=mvdedup(split(tags, ","))',
    ),
  },
  mvfind: {
    min: 2,
    max: 2,
    type: 'num',
    sql: (a) =>
      `(list_position(list_transform(${toList(a[0])}, lambda __v: regexp_matches(__v, ${toStr(a[1])})), TRUE) - 1)`,
    doc: doc(
      'mvfind(mv, regex)',
      'The 0-based position of the first value the regex (RE2) matches; null when none does.',
      '* | eval at=mvfind(split(tags, ","), "^prod")',
    ),
  },
  mvzip: {
    min: 2,
    max: 3,
    type: 'list',
    sql: (a) => {
      const [x, y] = [toList(a[0]), toList(a[1])];
      const sep = a.length > 2 ? toStr(a[2]) : "','";
      return `list_transform(range(1, least(len(${x}), len(${y})) + 1), lambda __i: ${x}[__i] || ${sep} || ${y}[__i])`;
    },
    doc: doc(
      'mvzip(a, b[, delim])',
      'The values of a and b paired in order, each pair joined with the delimiter (a comma by default), as long as the shorter.',
      '* | eval pairs=mvzip(split(keys, ","), split(vals, ","))',
    ),
  },
};
