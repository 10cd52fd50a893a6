import { doc, type ConstructDoc } from '../doc.js';
import type { ColRef } from '../schema.js';
import { toBool, toNum, toStr, unify } from './coerce.js';
import { MV_FUNCTIONS } from './mv-functions.js';
import { TIME_FUNCTIONS } from './time-functions.js';
import { tried, type FnDef } from './fn-def.js';
import { cidrmatchSql, tostringSql } from './format-functions.js';

const n1 = (f: string, d: ConstructDoc): FnDef => ({
  min: 1,
  max: 1,
  type: 'num',
  sql: (a) => `${f}(${toNum(a[0])})`,
  doc: d,
});
const s1 = (f: string, d: ConstructDoc): FnDef => ({
  min: 1,
  max: 1,
  type: 'str',
  sql: (a) => `${f}(${toStr(a[0])})`,
  doc: d,
});
/** trim, ltrim, rtrim: spaces, or with Splunk's second argument the characters it lists. */
const trimFn = (f: string, d: ConstructDoc): FnDef => ({
  min: 1,
  max: 2,
  type: 'str',
  sql: (a) => `${f}(${toStr(a[0])}${a.length > 1 ? `, ${toStr(a[1])}` : ''})`,
  doc: d,
});
/**
 * Functions of `where` and `eval` (the FnDef of each: fn-def.ts). Regex arguments are RE2 (DuckDB's engine).
 */
export const FUNCTIONS: Record<string, FnDef> = {
  lower: s1('lower', doc('lower(x)', 'The text in lower case.', '* | eval h=lower(host)')),
  upper: s1('upper', doc('upper(x)', 'The text in upper case.', '* | eval m=upper(method)')),
  trim: trimFn(
    'trim',
    doc(
      'trim(x[, chars])',
      'The text without leading and trailing spaces, or the characters given.',
      '* | eval u=trim(user)',
    ),
  ),
  ltrim: trimFn(
    'ltrim',
    doc(
      'ltrim(x[, chars])',
      'The text without leading spaces, or the characters given.',
      '* | eval u=ltrim(user, "0")',
    ),
  ),
  rtrim: trimFn(
    'rtrim',
    doc('rtrim(x[, chars])', 'The text without trailing spaces, or the characters given.', '* | eval u=rtrim(user)'),
  ),
  len: {
    min: 1,
    max: 1,
    type: 'num',
    sql: (a) => `length(${toStr(a[0])})`,
    doc: doc('len(x)', 'The number of characters of the text.', '* | where len(message) > 200'),
  },
  abs: n1('abs', doc('abs(x)', 'The number without its sign.', '* | eval d=abs(delta)')),
  floor: n1(
    'floor',
    doc('floor(x)', 'The number rounded down to a whole number.', '* | eval s=floor(duration_ms / 1000)'),
  ),
  ceil: n1('ceil', doc('ceil(x)', 'The number rounded up to a whole number.', '* | eval pages=ceil(bytes / 4096)')),
  sqrt: tried(n1('sqrt', doc('sqrt(x)', 'The square root; null for a negative number.', '* | eval r=sqrt(area)'))),
  ln: tried(
    n1('ln', doc('ln(x)', 'The natural logarithm; null for zero or a negative number.', '* | eval l=ln(bytes)')),
  ),
  exp: n1('exp', doc('exp(x)', 'e raised to the power of the number.', '* | eval g=exp(rate)')),
  log: tried({
    min: 1,
    max: 2,
    type: 'num',
    sql: (a) => (a.length === 1 ? `log10(${toNum(a[0])})` : `(ln(${toNum(a[0])}) / ln(${toNum(a[1])}))`),
    doc: doc(
      'log(x[, base])',
      'The logarithm in the given base, 10 by default; null for zero or a negative number.',
      '* | eval mag=log(bytes, 2)',
    ),
  }),
  pow: {
    min: 2,
    max: 2,
    type: 'num',
    sql: (a) => `pow(${toNum(a[0])}, ${toNum(a[1])})`,
    doc: doc('pow(x, y)', 'x raised to the power y.', '* | eval sq=pow(size, 2)'),
  },
  round: tried({
    min: 1,
    max: 2,
    type: 'num',
    sql: (a) => `round(${toNum(a[0])}, ${a.length > 1 ? `CAST(${toNum(a[1])} AS INTEGER)` : '0'})`,
    doc: doc(
      'round(x[, digits])',
      'The number rounded to the given number of decimals, 0 by default.',
      '* | eval s=round(duration_ms / 1000, 2)',
    ),
  }),
  tonumber: {
    min: 1,
    max: 1,
    type: 'num',
    sql: (a) => toNum(a[0]),
    doc: doc(
      'tonumber(x)',
      'The value as a number; null when it does not read as one.',
      '* | eval code=tonumber(status)',
    ),
  },
  tostring: {
    min: 1,
    max: 2,
    type: 'str',
    sql: (a) => (a.length === 1 ? toStr(a[0]) : tostringSql(a[0], a[1])),
    doc: doc(
      'tostring(x[, "commas"|"hex"|"duration"])',
      'The value as text; a number with thousands separators (two decimals kept), in hex (0xFF), or seconds as [D+]HH:MM:SS.',
      '* | eval size=tostring(bytes, "commas")',
    ),
  },
  isnull: {
    min: 1,
    max: 1,
    type: 'bool',
    sql: (a) => `(${a[0].sql} IS NULL)`,
    doc: doc(
      'isnull(x)',
      'True when the value is null, for example a field the event lacks.',
      '* | where isnull(user)',
    ),
  },
  isnotnull: {
    min: 1,
    max: 1,
    type: 'bool',
    sql: (a) => `(${a[0].sql} IS NOT NULL)`,
    doc: doc('isnotnull(x)', 'True when the value is not null.', '* | where isnotnull(user)'),
  },
  isnum: {
    min: 1,
    max: 1,
    type: 'bool',
    sql: (a) => `(${toNum(a[0])} IS NOT NULL)`,
    doc: doc('isnum(x)', 'True when the value reads as a number.', '* | where isnum(status)'),
  },
  if: {
    min: 3,
    max: 3,
    type: 'any',
    sql: (a) => {
      const [then, otherwise] = unify([a[1], a[2]]).sqls;
      return `CASE WHEN coalesce(${toBool(a[0])}, FALSE) THEN ${then} ELSE ${otherwise} END`;
    },
    typeOf: (a) => unify([a[1], a[2]]).type,
    doc: doc(
      'if(cond, a, b)',
      'a when the condition is true, else b (a null condition counts as false; text when a and b differ in type).',
      '* | eval level=if(status >= 500, "error", "ok")',
    ),
  },
  case: {
    min: 2,
    max: 64,
    type: 'any',
    sql: (a) => {
      const values = unify(caseValues(a)).sqls;
      const whens = values.map((v, i) => `WHEN coalesce(${toBool(a[2 * i])}, FALSE) THEN ${v}`);
      return `CASE ${whens.join(' ')} ELSE NULL END`;
    },
    typeOf: (a) => unify(caseValues(a)).type,
    doc: doc(
      'case(cond1, v1[, cond2, v2…])',
      'The value after the first true condition; null when none is true (text when the values differ in type).',
      '* | eval class=case(status >= 500, "5xx", status >= 400, "4xx", true, "ok")',
    ),
  },
  coalesce: {
    min: 1,
    max: 64,
    type: 'any',
    sql: (a) => `coalesce(${unify(a).sqls.join(', ')})`,
    typeOf: (a) => unify(a).type,
    doc: doc(
      'coalesce(a, …)',
      'The first of the values that is not null (as text when they differ in type).',
      '* | eval who=coalesce(user, src_ip, "unknown")',
    ),
  },
  concat: {
    min: 1,
    max: 64,
    type: 'str',
    sql: (a) => `concat(${a.map(toStr).join(', ')})`,
    doc: doc('concat(a, …)', 'The values joined as text.', '* | eval where=concat(host, ":", port)'),
  },
  substr: tried({
    min: 2,
    max: 3,
    type: 'str',
    sql: (a) =>
      `substr(${toStr(a[0])}, CAST(${toNum(a[1])} AS BIGINT)${a.length > 2 ? `, CAST(${toNum(a[2])} AS BIGINT)` : ''})`,
    doc: doc(
      'substr(s, start[, len])',
      'Part of the text from a 1-based position, to the end or len characters long.',
      '* | eval day=substr(date, 1, 10)',
    ),
  }),
  replace: {
    min: 3,
    max: 3,
    type: 'str',
    sql: (a) => `regexp_replace(${toStr(a[0])}, ${toStr(a[1])}, ${toStr(a[2])}, 'g')`,
    doc: doc(
      'replace(s, regex, with)',
      'The text with every match of the regex (RE2) replaced.',
      '* | eval path=replace(uri, "\\?.*", "")',
    ),
  },
  match: {
    min: 2,
    max: 2,
    type: 'bool',
    sql: (a) => `regexp_matches(${toStr(a[0])}, ${toStr(a[1])})`,
    doc: doc(
      'match(s, regex)',
      'True when the regex (RE2) matches somewhere in the text.',
      '* | where match(message, "time.?out")',
    ),
  },
  like: {
    min: 2,
    max: 2,
    type: 'bool',
    sql: (a) => `(${toStr(a[0])} LIKE ${toStr(a[1])})`,
    doc: doc(
      'like(s, pattern)',
      'True when the whole text matches the pattern, where % is any run of characters and _ one character.',
      '* | where like(uri, "/api/%")',
    ),
  },
  min: {
    min: 1,
    max: 64,
    type: 'num',
    sql: (a) => `least(${a.map(toNum).join(', ')})`,
    doc: doc('min(a, …)', 'The smallest of the numbers.', '* | eval low=min(cpu, 100)'),
  },
  max: {
    min: 1,
    max: 64,
    type: 'num',
    sql: (a) => `greatest(${a.map(toNum).join(', ')})`,
    doc: doc('max(a, …)', 'The largest of the numbers.', '* | eval high=max(retries, 1)'),
  },
  ...TIME_FUNCTIONS,
  null: {
    min: 0,
    max: 0,
    type: 'any',
    sql: () => 'NULL',
    doc: doc('null()', 'No value.', '* | eval user=if(user = "-", null(), user)'),
  },
  true: {
    min: 0,
    max: 0,
    type: 'bool',
    sql: () => 'TRUE',
    doc: doc('true()', 'True.', '* | eval level=case(status >= 500, "error", true(), "ok")'),
  },
  false: {
    min: 0,
    max: 0,
    type: 'bool',
    sql: () => 'FALSE',
    doc: doc('false()', 'False.', '* | where false()'),
  },
  in: {
    min: 2,
    // `x IN (…)` lists can be long (host lists); the search part allows 1,000 terms
    max: 1000,
    type: 'bool',
    sql: (a) => {
      // numbers compare as numbers (in(status, 404, 500)), anything else as text
      const numeric = a.slice(1).every((v) => v.type === 'num');
      const conv = numeric ? toNum : toStr;
      return `(${conv(a[0])} IN (${a.slice(1).map(conv).join(', ')}))`;
    },
    doc: doc('in(x, v1, …)', 'True when the value equals one of the values.', '* | where in(status, 404, 500)'),
  },
  cidrmatch: {
    min: 2,
    max: 2,
    type: 'bool',
    sql: (a) => cidrmatchSql(a[0], a[1]),
    doc: doc(
      'cidrmatch(cidr, ip)',
      'True when the IPv4 address lies in the CIDR block (a quoted constant such as "10.0.0.0/8").',
      '* | where cidrmatch("10.0.0.0/8", clientip)',
    ),
  },
  urldecode: s1('url_decode', doc('urldecode(s)', 'The text with %XX escapes decoded.', '* | eval u=urldecode(uri)')),
  md5: s1('md5', doc('md5(s)', 'The MD5 digest of the text, in hex.', '* | eval h=md5(message)')),
  sha1: s1('sha1', doc('sha1(s)', 'The SHA-1 digest of the text, in hex.', '* | eval h=sha1(message)')),
  sha256: s1('sha256', doc('sha256(s)', 'The SHA-256 digest of the text, in hex.', '* | eval h=sha256(message)')),
  ...MV_FUNCTIONS,
  mvmap: {
    min: 2,
    max: 2,
    type: 'list',
    // compiled by expr.ts, which binds the field inside the expression to each value
    sql: () => {
      throw new Error('BUG: mvmap compiles in expr.ts');
    },
    doc: doc(
      'mvmap(mv, expr)',
      'The expression computed for each value of the multivalue field mv (the field standing for the value), as a multivalue.',
      '* | eval lower_users=mvmap(users, lower(users))',
    ),
  },
  searchmatch: {
    min: 1,
    max: 1,
    type: 'bool',
    // compiled by expr.ts, which reads its text as a search expression
    sql: () => {
      throw new Error('BUG: searchmatch compiles in expr.ts');
    },
    doc: doc(
      'searchmatch(search)',
      'True when the row matches the quoted search expression, read as the search before the first pipe reads one.',
      '* | stats count(eval(searchmatch("status=404 wp-login*"))) as probes by clientip',
    ),
  },
  mvfilter: {
    min: 1,
    max: 1,
    type: 'list',
    // compiled by expr.ts, which binds the field inside the condition to each value
    sql: () => {
      throw new Error('BUG: mvfilter compiles in expr.ts');
    },
    doc: doc(
      'mvfilter(cond)',
      'The values of the multivalue field the condition names for which it is true.',
      '* | eval admins=mvfilter(match(users, "^adm"))',
    ),
  },
};

/** The values of case(cond1, v1, cond2, v2…); a last condition without a value has none. */
function caseValues(a: ColRef[]): ColRef[] {
  return a.filter((_, i) => i % 2 === 1);
}

export function compileCall(fn: string, args: ColRef[], nowMs: number): ColRef {
  const def = FUNCTIONS[fn];
  return { sql: def.sql(args, nowMs), type: def.typeOf ? def.typeOf(args) : def.type };
}
