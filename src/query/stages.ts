import { colRef, type ColType, type Schema } from './schema.js';
import type { Subquery } from './parser-api.js';
import { ident } from './sql.js';
import { SvcError } from '../errors/svc-error.js';
import type { LookupCatalog } from './lookup-catalog.js';

/**
 * A query that parses but cannot be compiled against the columns it meets (a pipe's output would
 * name one column twice, timechart after a pipe that dropped `_time`). No position: the problem
 * is in how pipes combine, not in one token.
 */
export function pipeError(pipe: string, message: string): SvcError {
  return new SvcError('invalid_query', `${pipe}: ${message}`, { details: { pipe } });
}

/** Throws when `names` (a pipe's output columns) holds a name twice. */
export function checkDistinct(pipe: string, names: string[], hint: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw pipeError(pipe, `"${n}" would name two columns; ${hint}`);
    seen.add(n);
  }
}

export interface OrderKey {
  /** SQL of the sort expression over the stage's columns. */
  sql: string;
  desc: boolean;
  /** Columns the expression reads. */
  cols: string[];
}

/** An order by these columns, each ascending (the order of a table grouped by them). */
export function ascending(fields: string[]): OrderKey[] {
  return fields.map((f) => ({ sql: ident(f), desc: false, cols: [f] }));
}

export type ResultMode = 'events' | 'table';

/**
 * A timechart's or chart's shape, for filling empty buckets or cells (`zero`: count-like, else
 * null) and pivoting `by`.
 */
export interface TimechartInfo {
  /** The bucket width; 0 for a chart, whose rows are the values of `over` and are not filled in. */
  spanSecs: number;
  /** chart's row field; a timechart's rows are `_time`. */
  over?: string;
  by?: string;
  aggs: { name: string; zero: boolean }[];
}

/**
 * Builds the CTE chain of one query: each pipe appends stages that read the previous one.
 * Tracks the columns and types of the current stage, its row order (CTEs carry no order, so the
 * order is applied where it matters: head, tail, dedup and the final SELECT) and whether the result
 * is still events or has become a table.
 */
export class StageBuilder {
  cur: string;
  schema: Schema;
  order: OrderKey[];
  mode: ResultMode = 'events';
  /** The stage whose row count is `meta.matched` (fixed at the first head/tail/table pipe). */
  matchedStage: string | undefined;
  /** Set by timechart and chart; when it is the last pipe, the service fills empty buckets and pivots `by`. */
  timechart: TimechartInfo | undefined;
  /** The tables `lookup` may join (CompileOptions.lookups); none: every table is unknown. */
  lookups: LookupCatalog | undefined;
  /**
   * Fields the pipes after the one compiling read before one of them defines them (compile.ts sets
   * it for each pipe): what `spath` or `kv` without names extract.
   */
  readLater: string[] = [];
  /** Compiles a subquery over the same relation into this statement's stages (compile.ts), for `append`. */
  subquery: ((q: Subquery, alsoRead?: string[]) => StageBuilder) | undefined;

  /** Compiles pipes over a builder's rows (compile.ts), for the commands that run a pipeline in brackets (appendpipe, foreach). */
  runPipes: ((pipes: Subquery['pipes'], into: StageBuilder) => void) | undefined;
  /** Parses the text of a pipeline (compile.ts, parser.ts), for foreach's template once its fields are known. */
  parsePipes: ((text: string) => Subquery['pipes']) | undefined;
  /**
   * The search's own time range (the request's from/to and the query's earliest/latest), unlike
   * `range` never widened to the data's extent: what `addinfo` reports. Unset bounds: all time.
   */
  searchRange: { fromMs?: number; toMs?: number } = {};
  /**
   * `fieldformat`'s display formats by field, the last one of a field winning: each compiles its
   * expression over the final stage's columns. Applied once after the last pipe (pipe-fieldformat.ts),
   * so no pipe ever computes with a formatted value.
   */
  formats = new Map<string, (schema: Schema) => { sql: string; type: ColType }>();

  constructor(
    first: string,
    schema: Schema,
    readonly nowMs: number,
    /** The query's time range when known (request, earliest/latest or the data's own extent). */
    readonly range: { fromMs: number; toMs: number } | undefined,
    /** The statement's stages; a subquery's builder shares its parent's, so stage names stay unique. */
    readonly ctes: string[] = [],
  ) {
    this.cur = first;
    this.schema = schema;
    this.order = [{ sql: '_time', desc: true, cols: ['_time'] }];
  }

  /** Appends a stage; `body` is a SELECT over `this.cur`. */
  push(body: string, schema: Schema = this.schema): void {
    const name = `s${this.ctes.length}`;
    this.ctes.push(`${name} AS (${body})`);
    this.cur = name;
    this.schema = schema;
  }

  /**
   * Appends a stage setting columns: each replaces the column of its name, or is added after the
   * others when the stage has none; nothing when `cols` is empty. The pipes that compute fields
   * beside the current ones (rex, fillnull, eventstats, the extraction stages) all go through it.
   */
  setColumns(cols: { name: string; sql: string; type: ColType }[]): void {
    if (cols.length === 0) return;
    const schema = new Map(this.schema);
    const replaced: string[] = [];
    const added: string[] = [];
    for (const c of cols) {
      (this.schema.has(c.name) ? replaced : added).push(`${c.sql} AS ${ident(c.name)}`);
      schema.set(c.name, c.type);
    }
    const star = replaced.length ? `* REPLACE (${replaced.join(', ')})` : '*';
    this.push(`SELECT ${[star, ...added].join(', ')} FROM ${this.cur}`, schema);
  }

  /** Marks the current stage as the one `matched` counts, unless one was marked already. */
  markMatched(): void {
    this.matchedStage ??= this.cur;
  }

  col(name: string) {
    return colRef(this.schema, name);
  }

  orderSql(order: OrderKey[] = this.order): string {
    return order.map((k) => `${k.sql} ${k.desc ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`).join(', ');
  }

  orderBy(order: OrderKey[] = this.order): string {
    return order.length ? ` ORDER BY ${this.orderSql(order)}` : '';
  }

  /**
   * Before a stage that keeps only `kept` columns: when the current order reads a column that will
   * be gone, number the rows so the order survives as `__ord`. Returns the extra SELECT item.
   */
  keepOrder(kept: Set<string>): string {
    if (this.order.every((k) => k.cols.every((c) => kept.has(c)))) return '';
    if (this.order.length === 1 && this.order[0].sql === '__ord') return ', __ord';
    const expr = `row_number() OVER (${this.orderBy()}) AS __ord`;
    this.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
    return `, ${expr}`;
  }

  /** A SELECT list that keeps every current column. */
  allColumns(schema: Schema = this.schema): string {
    const cols = [...schema.keys()].map(ident);
    if (this.order.some((k) => k.sql === '__ord')) cols.push('__ord');
    return cols.join(', ');
  }

  /** A builder over the current rows that adds its stages to the same statement (appendpipe's pipeline). */
  fork(): StageBuilder {
    const f = new StageBuilder(this.cur, new Map(this.schema), this.nowMs, this.range, this.ctes);
    f.order = [...this.order];
    f.mode = this.mode;
    f.lookups = this.lookups;
    f.subquery = this.subquery;
    f.runPipes = this.runPipes;
    f.parsePipes = this.parsePipes;
    return f;
  }

  static schemaOf(entries: Iterable<[string, ColType]>): Schema {
    return new Map(entries);
  }
}
