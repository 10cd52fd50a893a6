import type { FieldTokens, RelationInfo } from '../storage/types.js';
import { parsePipeline, type Query } from './parser.js';
import type { LookupCatalog } from './lookup-catalog.js';
import { pipeDef, type PipeNode } from './pipes/registry.js';
import { applyFormats } from './pipes/pipe-fieldformat.js';
import { CORE_COLUMNS, CORE_NAMES, RAW, arrayPath, colRef, storedName, type ColType, type Schema } from './schema.js';
import { isExtractable, storedAliases, textValueSql } from './extract/auto-fields.js';
import { extractedFieldTokens, pushExtracted } from './extract/extract-stage.js';
import { MATCH_ALL, compileSearch, conjuncts, requiredTokens, searchFields } from './search/filter-logic.js';
import { timeFilterMs } from './search/filter-time.js';
import { isRelativeTime } from './time-range.js';
import { ident, outputName, timeLiteral, timeText } from './sql.js';
import { StageBuilder, type OrderKey, type ResultMode, type TimechartInfo } from './stages.js';

/** What the store needs to know before the scan (ScanSpec parts) and what the query's own time bounds are. */
export interface QueryAnalysis {
  requiredTokens: string[];
  /** Tokens the message must hold unless the event stores one of the fields (ScanSpec.fieldTokens). */
  fieldTokens: FieldTokens[];
  /** User fields the statement reads; '*' when whole events are returned or names are wildcards. */
  fields: string[] | '*';
  mode: ResultMode;
  /** From top-level `earliest=` / `latest=`, epoch ms. */
  fromMs?: number;
  toMs?: number;
  /** Some top-level `earliest=` is relative to now (`-8d`): without a latest, the range ends now. */
  fromRelative?: boolean;
  /** Plain event search (no pipes but `head`): eligible for the two-step top-N path. */
  plainEvents: boolean;
  headN?: number;
}

/**
 * Names the store must expose: user fields only (core columns are always there), with the stored
 * fields that hold the same value under another name (syslog's `app` for `program`, extract/formats.ts).
 * Not `_raw`: it is the message (schema.ts, RAW), and a user column of that name would hide it.
 */
export function userFields(names: string[]): string[] {
  // `a{}.b` reads the stored field `a` (schema.ts, arrayPath)
  const user = names.map(storedName).filter((n) => !CORE_NAMES.has(n) && n !== RAW);
  return [...new Set([...user, ...user.flatMap(storedAliases)])];
}

/**
 * The user fields a query reads from the events themselves: named in the search, or read by a pipe
 * before any pipe defines them, up to the first pipe whose output replaces the events (stats; past
 * one that carries their fields along, transaction).
 * `wildcard`: some pipe reads names by pattern, so any field may be read.
 */
export function readFields(q: Query): { names: string[]; wildcard: boolean; mode: ResultMode } {
  const refs = new Set(searchFields(q.search));
  const defined = new Set<string>();
  let wildcard = false;
  let mode: ResultMode = 'events';
  // append's and join's subquery (multisearch's searches) reads the events themselves, whatever
  // the pipes before it defined, after a stats too
  for (const sub of q.pipes.flatMap(ownSubqueries).map(readFields)) {
    sub.names.forEach((f) => refs.add(f));
    if (sub.wildcard || sub.mode === 'events') wildcard = true;
  }
  for (const p of q.pipes) {
    const def = pipeDef(p);
    const reads = def.reads(p);
    if (reads === '*') wildcard = true;
    else for (const f of reads) if (!defined.has(f)) refs.add(f);
    const writes = def.writes(p);
    const own = def.carries?.(p);
    if (writes === 'all' && own) {
      mode = 'table';
      own.forEach((w) => defined.add(w));
      continue;
    }
    if (writes === 'all') {
      mode = 'table';
      break;
    }
    writes.forEach((w) => defined.add(w));
  }
  // `_raw` is the message (schema.ts, RAW), not a field the store is asked for
  return { names: [...refs].filter((f) => !CORE_NAMES.has(f) && f !== RAW).sort(), wildcard, mode };
}

export function analyze(q: Query, nowMs: number): QueryAnalysis {
  const read = readFields(q);
  const mode = read.mode;
  const withAliases = userFields(read.names).sort();
  const subs = subqueries(q);
  const out: QueryAnalysis = {
    // one scan feeds the main search and its subqueries: only tokens all of them require prune
    requiredTokens: subs
      .map((sub) => new Set(requiredTokens(sub.search)))
      .reduce((acc, theirs) => acc.filter((t) => theirs.has(t)), requiredTokens(q.search)),
    fieldTokens: subs.length ? [] : extractedFieldTokens(q.search),
    fields: mode === 'events' || read.wildcard ? '*' : withAliases,
    mode,
    plainEvents: q.pipes.every((p) => p.kind === 'head'),
  };
  const heads = q.pipes.filter((p) => p.kind === 'head');
  if (heads.length) out.headN = Math.min(...heads.map((h) => (h.kind === 'head' ? h.n : Infinity)));
  for (const c of conjuncts(q.search)) {
    if (c.kind !== 'time') continue;
    const ms = timeFilterMs(c, nowMs);
    if (c.bound === 'earliest') {
      out.fromMs = Math.max(out.fromMs ?? -Infinity, ms);
      out.fromRelative ||= isRelativeTime(c.value);
    } else out.toMs = Math.min(out.toMs ?? Infinity, ms);
  }
  return out;
}

export interface CompileOptions {
  nowMs: number;
  /** Time range used for an automatic timechart span. */
  range?: { fromMs: number; toMs: number };
  /** Rows returned: events (limit) or table rows (cap). */
  limit: number;
  /** Keep only events at or after this time, epoch µs (the second step of the two-step path). */
  sinceUs?: number;
  /** Stop before the pipes (histogram and fields use the search part only). */
  searchOnly?: boolean;
  /**
   * Other fields the caller reads from the result (a histogram's `by`; the pipes after multisearch
   * for its searches), found in the message like the search's.
   */
  alsoRead?: string[];
  /**
   * Order rows that tie on the query's order by the core columns too, so that two runs of the
   * statement pick the same rows at a LIMIT (an export counts the fields of its rows first).
   */
  tiebreak?: boolean;
  /** The tables the `lookup` pipe may read (src/lookups/); unset: every table is unknown. */
  lookups?: LookupCatalog;
  /** The search's own time range, for `addinfo` (StageBuilder.searchRange); unset: all time. */
  searchRange?: { fromMs?: number; toMs?: number };
}

export interface CompiledQuery {
  /** The CTE chain without a final SELECT: `WITH s0 AS (…), s1 AS (…)`. */
  with: string;
  /** The statement returning the result rows. */
  sql: string;
  /** The statement counting `meta.matched`. */
  countSql: string;
  mode: ResultMode;
  columns: { name: string; type: ColType }[];
  timechart?: TimechartInfo;
  /** The last stage's name, to build other statements over it. */
  last: string;
}

/**
 * The relation's columns as the compiler types them: a user field stored as numbers (BIGINT or
 * DOUBLE in every block and live partition of the scan) is `num` and one of booleans `bool`, so
 * eval keeps them numbers; text (which may hold numbers, `"404"`) and fields no event has stay `any`.
 */
export function baseSchema(rel: RelationInfo): Schema {
  const s: Schema = new Map(CORE_COLUMNS);
  const typeOf = (sqlType: string | undefined): ColType =>
    sqlType === 'BIGINT' || sqlType === 'DOUBLE' ? 'num' : sqlType === 'BOOLEAN' ? 'bool' : 'any';
  for (const f of rel.fieldColumns) if (!s.has(f)) s.set(f, typeOf(rel.fieldTypes?.[f]));
  return s;
}

/** Compiles a query into one DuckDB statement (a CTE chain) over the store's relation. */
export function compile(q: Query, rel: RelationInfo, opts: CompileOptions): CompiledQuery {
  const b = new StageBuilder(`${rel.sql}`, baseSchema(rel), opts.nowMs, opts.range);
  compileInto(q, b, rel, opts);
  if (!opts.searchOnly)
    applyFormats(
      b,
      q.pipes.some((p) => p.kind === 'outputlookup'),
    );
  const withSql = `WITH ${b.ctes.join(', ')}`;
  const columns = [...b.schema].map(([name, type]) => ({ name, type }));
  return {
    with: withSql,
    sql: `${withSql} SELECT ${selectList(columns)} FROM ${b.cur}${b.orderBy(opts.tiebreak ? withTiebreak(b) : b.order)} LIMIT ${opts.limit}`,
    countSql: `${withSql} SELECT count(*) AS n FROM ${b.matchedStage ?? b.cur}`,
    mode: b.mode,
    columns,
    timechart: b.timechart,
    last: b.cur,
  };
}

/** The subqueries of a query's `append`, `join` and `multisearch` pipes, nested ones included. */
export function subqueries(q: Query): Query[] {
  return q.pipes.flatMap((p) => ownSubqueries(p).flatMap((sub) => [sub, ...subqueries(sub)]));
}

/** The queries a pipe holds that read the events themselves: append's and join's `sub`, multisearch's `subs`. */
function ownSubqueries(p: PipeNode): Query[] {
  if ('sub' in p) return [p.sub as Query];
  if ('subs' in p) return p.subs as Query[];
  return [];
}

/** Adds the stages of a query (its search, then its pipes) to a builder over the relation. */
function compileInto(q: Query, b: StageBuilder, rel: RelationInfo, opts: CompileOptions): void {
  const schema = b.schema;
  b.lookups = opts.lookups;
  b.searchRange = opts.searchRange ?? {};
  // `append [search …]`, `join … [search …]`: the subquery's stages join this statement, over the same relation
  b.subquery = (sub, alsoRead) => {
    const sb = new StageBuilder(rel.sql, baseSchema(rel), opts.nowMs, opts.range, b.ctes);
    compileInto(sub as Query, sb, rel, { ...opts, searchOnly: false, sinceUs: undefined, alsoRead });
    return sb;
  };
  b.runPipes = (pipes, into) => compilePipes(pipes as PipeNode[], into);
  b.parsePipes = parsePipeline;
  const since = opts.sinceUs === undefined ? [] : [`_time >= ${timeLiteral(opts.sinceUs / 1000)}`];
  // a field read before any pipe defines it may be found in the message (query/extract)
  const reads = [
    ...new Set([...(opts.searchOnly ? searchFields(q.search) : readFields(q).names), ...(opts.alsoRead ?? [])]),
  ];
  const extracted = new Map(
    reads.filter(isExtractable).map((n) => [n, (gate?: string) => textValueSql(n, (x) => colRef(schema, x), gate)]),
  );
  const where = [compileSearch(q.search, schema, opts.nowMs, extracted), ...since].filter(
    (w) => w !== 'TRUE' && w !== '(TRUE)',
  );
  b.push(`SELECT * FROM ${rel.sql} AS e${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`);
  if (extracted.size > 0) pushExtracted(b, new Map([...extracted].map(([n, sql]) => [n, sql()])), rel.fieldTypes);
  if (opts.searchOnly) return;
  compilePipes(q.pipes, b);
}

/** Adds the stages of pipes, in order, to a builder. */
function compilePipes(pipes: PipeNode[], b: StageBuilder): void {
  pipes.forEach((p, i) => {
    // fieldformat only records a display format and transpose runs after the shaping: the shape
    // of a timechart before them stays known
    if (p.kind !== 'fieldformat' && p.kind !== 'transpose') b.timechart = undefined;
    b.readLater = readFields({ search: MATCH_ALL, pipes: pipes.slice(i + 1) }).names.filter(isExtractable);
    const def = pipeDef(p);
    const reads = def.reads(p);
    if (reads !== '*') materializeArrayPaths(b, reads);
    def.compile(p, b);
  });
}

/**
 * `a{}.b` that a pipe reads becomes a column of its own before the pipe, so that every pipe
 * (rename, stats … by, table, mvexpand) sees a multivalue field by that name: read from the stage's
 * `a` at that point (after `rename properties.* as *` too).
 */
function materializeArrayPaths(b: StageBuilder, names: string[]): void {
  b.setColumns(
    [...new Set(names)]
      .filter((n) => arrayPath(n) !== undefined && !b.schema.has(n))
      .map((name) => ({ name, ...colRef(b.schema, name) }))
      .filter((c) => c.sql !== 'NULL'),
  );
}

/** The stage's order, then the core columns it has and does not order by yet. */
function withTiebreak(b: StageBuilder): OrderKey[] {
  const used = new Set(b.order.flatMap((k) => k.cols));
  const extra = [...CORE_NAMES]
    .filter((n) => b.schema.has(n) && !used.has(n))
    .map((n) => ({ sql: ident(n), desc: false, cols: [n] }));
  return [...b.order, ...extra];
}

/**
 * The SELECT list of a result: times as RFC 3339 text with microseconds (as answers print them), the
 * rest as stored, each under its own name (a top-level SELECT keeps `Foo` and `foo` apart).
 */
export function selectList(columns: { name: string; type: ColType }[]): string {
  return columns
    .map((c) => `${c.type === 'time' ? timeText(ident(c.name)) : ident(c.name)} AS ${outputName(c.name)}`)
    .join(', ');
}
