import { ident } from './sql.js';

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
