import type { ColRef, ColType } from '../schema.js';
import { num } from '../sql.js';
import { toBool, toNum, toStr } from './coerce.js';

/**
 * Functions of `where` and `eval`. Each turns compiled arguments into SQL and says its type.
 * Regex arguments are RE2 (DuckDB's engine).
 */
interface FnDef {
  min: number;
  max: number;
  type: ColType;
  sql(args: ColRef[], nowMs: number): string;
}

const n1 = (f: string): FnDef => ({ min: 1, max: 1, type: 'num', sql: (a) => `${f}(${toNum(a[0])})` });
const s1 = (f: string): FnDef => ({ min: 1, max: 1, type: 'str', sql: (a) => `${f}(${toStr(a[0])})` });
/**
 * A function whose result depends on values that can be out of its domain (`ln(0)`, `sqrt(-1)`, a
 * time past year 9999): such a row gets null, as in Splunk, instead of failing the whole search.
 * DuckDB's try() catches errors per row; errors from constants (an invalid regex or format) are
 * raised before any row and reach the caller as a 400 (query/run-errors.ts).
 */
const tried = (d: FnDef): FnDef => ({ ...d, sql: (a, now) => `try(${d.sql(a, now)})` });

export const FUNCTIONS: Record<string, FnDef> = {
  lower: s1('lower'),
  upper: s1('upper'),
  trim: s1('trim'),
  ltrim: s1('ltrim'),
  rtrim: s1('rtrim'),
  len: { min: 1, max: 1, type: 'num', sql: (a) => `length(${toStr(a[0])})` },
  abs: n1('abs'),
  floor: n1('floor'),
  ceil: n1('ceil'),
  sqrt: tried(n1('sqrt')),
  ln: tried(n1('ln')),
  exp: n1('exp'),
  log: tried({ min: 1, max: 2, type: 'num', sql: (a) => (a.length === 1 ? `log10(${toNum(a[0])})` : `(ln(${toNum(a[0])}) / ln(${toNum(a[1])}))`) }),
  pow: { min: 2, max: 2, type: 'num', sql: (a) => `pow(${toNum(a[0])}, ${toNum(a[1])})` },
  round: tried({ min: 1, max: 2, type: 'num', sql: (a) => `round(${toNum(a[0])}, ${a.length > 1 ? `CAST(${toNum(a[1])} AS INTEGER)` : '0'})` }),
  tonumber: { min: 1, max: 1, type: 'num', sql: (a) => toNum(a[0]) },
  tostring: { min: 1, max: 1, type: 'str', sql: (a) => toStr(a[0]) },
  isnull: { min: 1, max: 1, type: 'bool', sql: (a) => `(${a[0].sql} IS NULL)` },
  isnotnull: { min: 1, max: 1, type: 'bool', sql: (a) => `(${a[0].sql} IS NOT NULL)` },
  isnum: { min: 1, max: 1, type: 'bool', sql: (a) => `(${toNum(a[0])} IS NOT NULL)` },
  if: {
    min: 3, max: 3, type: 'any',
    sql: (a) => `CASE WHEN coalesce(${toBool(a[0])}, FALSE) THEN ${a[1].sql} ELSE ${a[2].sql} END`,
  },
  case: {
    min: 2, max: 64, type: 'any',
    sql: (a) => {
      const whens: string[] = [];
      for (let i = 0; i + 1 < a.length; i += 2) whens.push(`WHEN coalesce(${toBool(a[i])}, FALSE) THEN ${a[i + 1].sql}`);
      return `CASE ${whens.join(' ')} ELSE NULL END`;
    },
  },
  coalesce: { min: 1, max: 64, type: 'any', sql: (a) => `coalesce(${a.map((x) => toStr(x)).join(', ')})` },
  concat: { min: 1, max: 64, type: 'str', sql: (a) => `concat(${a.map(toStr).join(', ')})` },
  substr: tried({
    min: 2, max: 3, type: 'str',
    sql: (a) => `substr(${toStr(a[0])}, CAST(${toNum(a[1])} AS BIGINT)${a.length > 2 ? `, CAST(${toNum(a[2])} AS BIGINT)` : ''})`,
  }),
  replace: { min: 3, max: 3, type: 'str', sql: (a) => `regexp_replace(${toStr(a[0])}, ${toStr(a[1])}, ${toStr(a[2])}, 'g')` },
  match: { min: 2, max: 2, type: 'bool', sql: (a) => `regexp_matches(${toStr(a[0])}, ${toStr(a[1])})` },
  like: { min: 2, max: 2, type: 'bool', sql: (a) => `(${toStr(a[0])} LIKE ${toStr(a[1])})` },
  min: { min: 1, max: 64, type: 'num', sql: (a) => `least(${a.map(toNum).join(', ')})` },
  max: { min: 1, max: 64, type: 'num', sql: (a) => `greatest(${a.map(toNum).join(', ')})` },
  now: { min: 0, max: 0, type: 'num', sql: (_a, nowMs) => num(Math.floor(nowMs / 1000)) },
  strftime: tried({
    min: 2, max: 2, type: 'str',
    sql: (a) => `strftime(${a[0].type === 'time' ? a[0].sql : `make_timestamp(CAST(${toNum(a[0])} * 1e6 AS BIGINT))`}, ${toStr(a[1])})`,
  }),
  strptime: { min: 2, max: 2, type: 'num', sql: (a) => `(epoch_us(try_strptime(${toStr(a[0])}, ${toStr(a[1])})) / 1e6)` },
};

export function compileCall(fn: string, args: ColRef[], nowMs: number): ColRef {
  const def = FUNCTIONS[fn];
  return { sql: def.sql(args, nowMs), type: fn === 'if' ? args[1].type : def.type };
}
