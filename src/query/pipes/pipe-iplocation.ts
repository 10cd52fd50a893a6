import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { ColType, Schema } from '../schema.js';
import { ident, str } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { toStr } from '../expr/coerce.js';
import { IPLOCATION_SQL_FUNCTION } from '../../geo/duckdb-function.js';
import { ipDatabaseDir } from '../../geo/ip-database.js';
import { printListName } from './field-names.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';

/**
 * `iplocation [prefix=<text>] [allfields=false] [lang=en] <field>` (Splunk's iplocation): adds to
 * each row the fields City, Country, Region, lat and lon (each after `prefix`) of the address in
 * `field`, from DB-IP's IP to City Lite database (src/geo/, docs/geo.md). An address the database
 * does not know (private, loopback, reserved) or a value that is no address gives no fields (null),
 * as in Splunk. `allfields=true` (Continent, MetroCode, Timezone) and a `lang` other than English
 * are refused: the database has neither those fields nor names in other languages.
 */
export interface IplocationPipe {
  kind: 'iplocation';
  field: string;
  prefix?: string;
  allfields?: false;
  lang?: 'en';
}

/** The fields it writes: Splunk's names, the keys of the SQL function's STRUCT and their types. */
const OUTPUTS: { name: string; key: string; type: ColType }[] = [
  { name: 'City', key: 'city', type: 'str' },
  { name: 'Country', key: 'country', type: 'str' },
  { name: 'Region', key: 'region', type: 'str' },
  { name: 'lat', key: 'lat', type: 'num' },
  { name: 'lon', key: 'lon', type: 'num' },
];

const OPTIONS = ['prefix', 'allfields', 'lang'];

function option(p: Parser, name: string, n: IplocationPipe): void {
  const t = p.next('search');
  const text = t.kind === 'word' || t.kind === 'string' ? t.text : undefined;
  if (name === 'prefix') {
    if (text === undefined) throw p.fail(`unexpected ${describe(t)}: missing the text after "prefix="`, t);
    n.prefix = text;
  } else if (name === 'allfields') {
    const v = text?.toLowerCase();
    if (v === 'true' || v === 't')
      throw p.fail(
        'iplocation allfields=true is not supported: the IP location database svc ships (DB-IP Lite) has no continent, metro code or time zone',
        t,
      );
    if (v !== 'false' && v !== 'f')
      throw p.fail(`unexpected ${describe(t)}: missing true or false after "allfields="`, t);
    n.allfields = false;
  } else {
    if (text?.toLowerCase() !== 'en')
      throw p.fail(
        `iplocation lang=${text ?? describe(t)} is not supported: the IP location database names places in English only (lang=en)`,
        t,
      );
    n.lang = 'en';
  }
}

function parseIplocation(p: Parser): IplocationPipe {
  const opts = new PipeOptions(p, OPTIONS);
  const n: IplocationPipe = { kind: 'iplocation', field: '' };
  for (let name = opts.next(); name !== undefined; name = opts.next()) option(p, name, n);
  const at = p.peek('search');
  const names = p.fieldList('the field holding an IP address', { stop: OPTIONS });
  if (names.length !== 1 || names[0].includes('*'))
    throw p.fail(`iplocation takes one field without wildcards, not ${JSON.stringify(names.join(' '))}`, at);
  n.field = names[0];
  for (let name = opts.next(); name !== undefined; name = opts.next()) option(p, name, n);
  return n;
}

function printIplocation(n: IplocationPipe): string {
  const prefix = n.prefix === undefined ? '' : /^[A-Za-z0-9_.-]+$/.test(n.prefix) ? n.prefix : quoteString(n.prefix);
  const opts = [
    n.prefix !== undefined ? `prefix=${prefix}` : '',
    n.allfields === false ? 'allfields=false' : '',
    n.lang ? `lang=${n.lang}` : '',
  ].filter(Boolean);
  return `iplocation ${[...opts, printListName(n.field)].join(' ')}`;
}

const outputNames = (n: IplocationPipe) => OUTPUTS.map((o) => `${n.prefix ?? ''}${o.name}`);

/**
 * One stage: the address's STRUCT computed once a row (the function is volatile, so DuckDB does
 * not copy the call into each field that reads it), then its fields set beside the row's others.
 */
function compileIplocation(n: IplocationPipe, b: StageBuilder): void {
  ipDatabaseDir(); // a build without the database says so before anything runs
  const names = outputNames(n);
  const own = names.find((x) => x.startsWith('__') || x === '_time');
  if (own) throw pipeError('iplocation', `cannot write "${own}": choose another prefix`);
  const col = b.col(n.field);
  // a multivalue field: its first value, the one Splunk locates
  const ip = col.sql === 'NULL' ? 'NULL' : col.type === 'list' ? `CAST(${col.sql}[1] AS VARCHAR)` : toStr(col);
  const schema: Schema = new Map(b.schema);
  const replaced: string[] = [];
  const added: string[] = [];
  OUTPUTS.forEach((o, i) => {
    const sql = `struct_extract(__geo, ${str(o.key)}) AS ${ident(names[i])}`;
    (b.schema.has(names[i]) ? replaced : added).push(sql);
    schema.set(names[i], o.type);
  });
  // an order that reads a replaced field survives as a row number (`__ord`)
  const ord = b.keepOrder(new Set(['__ord', ...[...b.schema.keys()].filter((k) => !names.includes(k))]));
  const star = `* EXCLUDE (__geo)${replaced.length ? ` REPLACE (${replaced.join(', ')})` : ''}`;
  b.push(
    `SELECT ${[star, ...added].join(', ')}${ord} FROM (SELECT *, ${IPLOCATION_SQL_FUNCTION}(${ip}) AS __geo FROM ${b.cur})`,
    schema,
  );
}

export const iplocationPipe: PipeDef<IplocationPipe> = {
  name: 'iplocation',
  doc: doc(
    'iplocation [prefix=<text>] <field>',
    'Adds City, Country, Region, lat and lon of the IP address in a field (DB-IP Lite database; private addresses give none).',
    '* | iplocation clientip | stats count by Country',
  ),
  parse: parseIplocation,
  print: printIplocation,
  reads: (n) => [n.field],
  writes: outputNames,
  compile: compileIplocation,
};
