import type { ColType, Schema } from '../schema.js';
import { str } from '../sql.js';
import type { StageBuilder } from '../stages.js';

/**
 * The SQL part of `patterns`: the heavy lifting over every event, done by DuckDB in one pass. A
 * message's shape is its text with every value-like run replaced by `0`: from a digit (and the hex
 * digits before it) on through hex digits and `. : _ -`, so that an IP, a time, a UUID or a block
 * id is one run. Grouping by shape turns a million events into some thousands of rows, which
 * template.ts merges into templates.
 *
 * measured (bench/patterns.ts, 1M events, 2 cores): regexp_replace costs per match, and runs that
 * go on through punctuation cut the statement from 1.4 s (hex runs alone) to 1.0 s, with slightly
 * fewer shapes and the same templates. A careful mask (tokens.ts's, which needs lookarounds RE2
 * lacks) is left to the few thousand shapes.
 */

/** RE2 (and JS) regex of the runs a shape masks. */
export const SHAPE_REGEX = '[0-9a-fA-F]*[0-9][0-9a-fA-F.:_-]*';

/** The most shapes merged in JS; rarer ones are counted together in one row per group (`__other`). */
export const SHAPE_CAP = 50_000;
/** Rows the stage may give: the shapes plus one row of others per group. */
export const SHAPE_ROWS = 2 * SHAPE_CAP;

/** The JS twin of the SQL shape (tests and the evaluation use it). */
export function shapeOf(text: string): string {
  return text.replace(new RegExp(SHAPE_REGEX, 'g'), '0');
}

export interface ShapeInput {
  /** SQL text of the field templates are made of (a VARCHAR expression). */
  text: string;
  by: { sql: string; type: ColType }[];
  /** SQL of the event time, when the stage has one. */
  time: string | undefined;
}

/**
 * Appends the stages: shapes per group with count, least and greatest text, first and last time;
 * then the shapes beyond SHAPE_CAP (the rarest) folded into one `__other` row per group.
 * Columns: the by fields (`__by0`, …), then template.ts's SHAPE_COLUMNS; most common first.
 */
export function pushShapeStages(b: StageBuilder, s: ShapeInput): void {
  // by fields go by position (template.ts names them): a field called `__n` cannot clash
  const byOut = s.by.map((_, i) => `__by${i}`);
  const time = s.time ?? 'NULL';
  const select = [
    ...s.by.map((f, i) => `${f.sql} AS ${byOut[i]}`),
    `regexp_replace(${s.text}, ${str(SHAPE_REGEX)}, '0', 'g') AS __shape`,
    'count(*) AS __n',
    `min(${s.text}) AS __lo`,
    `max(${s.text}) AS __hi`,
    `min(${time}) AS __first`,
    `max(${time}) AS __last`,
  ];
  const where = [s.text, ...s.by.map((f) => f.sql)].map((x) => `${x} IS NOT NULL`).join(' AND ');
  const groups = [...s.by.map((_, i) => i + 1), s.by.length + 1].join(', ');
  b.push(`SELECT ${select.join(', ')} FROM ${b.cur} WHERE ${where} GROUP BY ${groups}`);
  const cols = [...byOut, '__n', '__lo', '__hi', '__first', '__last'];
  b.push(`SELECT ${cols.join(', ')}, row_number() OVER (ORDER BY __n DESC, __shape) AS __rank FROM ${b.cur}`);
  // one reference to the stage above (a second one could have DuckDB compute the shapes twice):
  // each shape of rank ≤ SHAPE_CAP is a group of its own, the rest one group per by value
  const other = `__rank > ${SHAPE_CAP}`;
  const folded = [
    ...byOut,
    'sum(__n) AS __n',
    'min(__lo) AS __lo',
    'max(__hi) AS __hi',
    'min(__first) AS __first',
    'max(__last) AS __last',
    `${other} AS __other`,
  ];
  const schema: Schema = new Map(s.by.map((f, i) => [byOut[i], f.type]));
  for (const [name, type] of [
    ['__n', 'num'],
    ['__lo', 'str'],
    ['__hi', 'str'],
    ['__first', s.time ? 'time' : 'any'],
    ['__last', s.time ? 'time' : 'any'],
    ['__other', 'bool'],
  ] as const)
    schema.set(name, type);
  b.push(
    `SELECT ${folded.join(', ')} FROM ${b.cur} GROUP BY ${[...byOut, `CASE WHEN ${other} THEN NULL ELSE __rank END`, other].join(', ')}`,
    schema,
  );
  b.order = [{ sql: '__n', desc: true, cols: ['__n'] }];
}
