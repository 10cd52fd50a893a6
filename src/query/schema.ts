import { ident, str } from './sql.js';
import { spathToJsonPath } from './extract/text-sql.js';

/** What the compiler knows about a column's values; `any` is a user field of unknown storage type. */
export type ColType = 'time' | 'str' | 'num' | 'bool' | 'any' | 'list';

/** The core columns of every event relation (storage/types.ts) and their types. */
export const CORE_COLUMNS: ReadonlyArray<[string, ColType]> = [
  ['_time', 'time'],
  ['env', 'str'],
  ['index', 'str'],
  ['host', 'str'],
  ['source', 'str'],
  ['sourcetype', 'str'],
  ['message', 'str'],
];
export const CORE_NAMES: ReadonlySet<string> = new Set(CORE_COLUMNS.map(([n]) => n));

/** Columns of one stage of the pipeline, in output order. */
export type Schema = Map<string, ColType>;

export interface ColRef {
  sql: string;
  type: ColType;
  /** The text of a string literal (an expression's `"…"`): arguments that must be constant, such as a format. */
  text?: string;
}

/**
 * Splunk's name for the event's text: svc's `message`. Every reader of a field by name resolves
 * it through colRef, so `_raw` works wherever a field does (search, where, eval, rex, table, stats…)
 * until a pipe gives the stage a `_raw` column of its own (`eval _raw=…`).
 */
export const RAW = '_raw';

/** A column of the stage; a name the stage lacks is NULL (Splunk: an absent field is null). */
export function colRef(schema: Schema, name: string): ColRef {
  const t = schema.get(name);
  if (t !== undefined) return { sql: ident(name), type: t };
  const array = arrayPath(name);
  if (array !== undefined) return arrayPathRef(schema, array);
  const message = name === RAW ? schema.get('message') : undefined;
  return message === undefined ? { sql: 'NULL', type: 'any' } : { sql: ident('message'), type: message };
}

/** Names in `schema` matching a pattern with `*` wildcards. */
export function expandPattern(schema: Schema, pattern: string): string[] {
  if (!pattern.includes('*')) return [pattern];
  const re = wildcardRegex(pattern);
  return [...schema.keys()].filter((n) => re.test(n));
}

/** A whole-string regex for a name pattern whose `*` matches anything (each `*` a group when `capture`). */
export function wildcardRegex(pattern: string, capture = false): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(capture ? '(.*)' : '.*')}$`,
  );
}

/**
 * A Splunk JSON array path (`a{}.b`, `a{2}`, `a{}.b{}.c`) split at its first step: the field that
 * holds the array (`a`: ingest stores an array as its JSON text, events/flatten.ts) and the path
 * inside it (`{}.b`). Undefined for a name without a step.
 */
export function arrayPath(name: string): { base: string; path: string } | undefined {
  const m = /^([^{}]+?)(\{\d*\}.*)$/.exec(name);
  return m ? { base: m[1], path: m[2] } : undefined;
}

/** The field a name reads from the events: the array's field for a JSON array path, else the name. */
export const storedName = (name: string): string => arrayPath(name)?.base ?? name;

/**
 * The values at a JSON array path, as Splunk's search-time JSON extraction gives them: a multivalue
 * of every element's value for `{}` (NULL when none has one), the one value for `{N}` (1-based). A
 * multivalue field of the stage (`makemv`, `rex max_match`) is its own array: `a{}` is its values.
 */
function arrayPathRef(schema: Schema, { base, path }: { base: string; path: string }): ColRef {
  const t = schema.get(base);
  if (t === undefined) return { sql: 'NULL', type: 'any' };
  if (t === 'list' && path === '{}') return { sql: ident(base), type: 'list' };
  const text = t === 'list' ? `to_json(${ident(base)})::VARCHAR` : `CAST(${ident(base)} AS VARCHAR)`;
  const found = `try(json_extract_string(${text}, ${str(spathToJsonPath(path))}))`;
  if (!path.includes('{}')) return { sql: found, type: 'any' };
  const kept = `list_filter(${found}, v -> v IS NOT NULL)`;
  return { sql: `(CASE WHEN len(${kept}) > 0 THEN ${kept} END)`, type: 'list' };
}
