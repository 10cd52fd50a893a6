import { CORE_NAMES } from '../schema.js';
import { fieldOfColumnSql, ident, str } from '../sql.js';
import { formatFieldCatalog, formatValueSql } from './auto-fields.js';
import { embeddedJsonSql, KV_KEY_START, KV_VALUE } from './text-sql.js';

/**
 * Every field found in the messages of a sample, for the fields summary (the search page's field
 * list and autocomplete), where a search only finds the fields it names: the known layouts'
 * fields, the top-level keys of an embedded JSON object, and every `key=value` pair. Rows
 * `(__r, name, value)` over a relation `from` with a row id `__r`; for one row and name the first
 * source wins (layouts, then JSON, then the first pair of that key), as in auto-fields.ts.
 */

/** A pair `key=value` whose key starts with a letter or `_`, by text-sql.ts's rule: key is group 1, the value groups 2 to 4. */
const PAIR = `${KV_KEY_START}([A-Za-z_][A-Za-z0-9_.-]*)=${KV_VALUE}`;

export function foundPairsSql(from: string): string {
  const layoutCols = formatFieldCatalog().map((f) => `${formatValueSql(f.name)} AS ${ident(f.name)}`);
  const layouts = `SELECT __r, ${fieldOfColumnSql('name')} AS name, value, 0 AS src, 0 AS pos FROM (UNPIVOT (SELECT __r, ${layoutCols.join(', ')} FROM ${from}) ON COLUMNS(* EXCLUDE (__r)) INTO NAME name VALUE value)`;
  const json =
    `SELECT __r, k AS name, try(json_extract_string(j, '/' || replace(replace(k, '~', '~0'), '/', '~1'))) AS value, 1 AS src, 0 AS pos ` +
    `FROM (SELECT __r, j, unnest(try(json_keys(j))) AS k FROM (SELECT __r, ${embeddedJsonSql('message')} AS j FROM ${from} WHERE contains(message, '{')))`;
  const all = (g: number) => `regexp_extract_all(message, ${str(PAIR)}, ${g})`;
  const pairs =
    `SELECT __r, k AS name, coalesce(nullif(q, ''), nullif(a, ''), nullif(v, '')) AS value, 2 AS src, pos ` +
    `FROM (SELECT __r, unnest(range(len(${all(1)}))) AS pos, unnest(${all(1)}) AS k, unnest(${all(2)}) AS q, unnest(${all(3)}) AS a, unnest(${all(4)}) AS v FROM ${from} WHERE contains(message, '='))`;
  const core = [...CORE_NAMES].map(str).join(', ');
  return (
    `SELECT __r, name, value FROM (${layouts} UNION ALL ${json} UNION ALL ${pairs}) ` +
    `WHERE value IS NOT NULL AND name NOT IN (${core}) AND NOT starts_with(name, '_') ` +
    `QUALIFY row_number() OVER (PARTITION BY __r, name ORDER BY src, pos) = 1`
  );
}
