import type { RelationInfo } from '../storage/types.js';
import type { Query } from './parser.js';
import { pipeDef } from './pipes/registry.js';
import { CORE_COLUMNS, CORE_NAMES, type ColType, type Schema } from './schema.js';
import { compileSearch, conjuncts, requiredTokens, searchFields } from './search/filter-logic.js';
import { timeFilterMs } from './search/filter-time.js';
import { ident, timeLiteral, timeText } from './sql.js';
import { StageBuilder, type OrderKey, type ResultMode, type TimechartInfo } from './stages.js';

/** What the store needs to know before the scan (ScanSpec parts) and what the query's own time bounds are. */
export interface QueryAnalysis {
  requiredTokens: string[];
  /** User fields the statement reads; '*' when whole events are returned or names are wildcards. */
  fields: string[] | '*';
  mode: ResultMode;
  /** From top-level `earliest=` / `latest=`, epoch ms. */
  fromMs?: number;
  toMs?: number;
  /** Plain event search (no pipes but `head`): eligible for the two-step top-N path. */
  plainEvents: boolean;
  headN?: number;
}

export function analyze(q: Query, nowMs: number): QueryAnalysis {
  const refs = new Set(searchFields(q.search));
  const defined = new Set<string>();
  let fields: string[] | '*' | undefined;
  let mode: ResultMode = 'events';
  for (const p of q.pipes) {
    const def = pipeDef(p);
    const reads = def.reads(p);
    if (reads === '*') fields = '*';
    else for (const f of reads) if (!defined.has(f)) refs.add(f);
    const writes = def.writes(p);
    if (writes === 'all') {
      mode = 'table';
      break;
    }
    writes.forEach((w) => defined.add(w));
  }
  if (mode === 'events') fields = '*';
  const out: QueryAnalysis = {
    requiredTokens: requiredTokens(q.search),
    fields: fields ?? [...refs].filter((f) => !CORE_NAMES.has(f)).sort(),
    mode,
    plainEvents: q.pipes.every((p) => p.kind === 'head'),
  };
  const heads = q.pipes.filter((p) => p.kind === 'head');
  if (heads.length) out.headN = Math.min(...heads.map((h) => (h.kind === 'head' ? h.n : Infinity)));
  for (const c of conjuncts(q.search)) {
    if (c.kind !== 'time') continue;
    const ms = timeFilterMs(c, nowMs);
    if (c.bound === 'earliest') out.fromMs = Math.max(out.fromMs ?? -Infinity, ms);
    else out.toMs = Math.min(out.toMs ?? Infinity, ms);
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
   * Order rows that tie on the query's order by the core columns too, so that two runs of the
   * statement pick the same rows at a LIMIT (an export counts the fields of its rows first).
   */
  tiebreak?: boolean;
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

export function baseSchema(rel: RelationInfo): Schema {
  const s: Schema = new Map(CORE_COLUMNS);
  for (const f of rel.fieldColumns) if (!s.has(f)) s.set(f, 'any');
  return s;
}

/** Compiles a query into one DuckDB statement (a CTE chain) over the store's relation. */
export function compile(q: Query, rel: RelationInfo, opts: CompileOptions): CompiledQuery {
  const schema = baseSchema(rel);
  const b = new StageBuilder(`${rel.sql}`, schema, opts.nowMs, opts.range);
  const since = opts.sinceUs === undefined ? [] : [`_time >= ${timeLiteral(opts.sinceUs / 1000)}`];
  const where = [compileSearch(q.search, schema, opts.nowMs), ...since].filter((w) => w !== 'TRUE' && w !== '(TRUE)');
  b.push(`SELECT * FROM ${rel.sql} AS e${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`);
  if (!opts.searchOnly) {
    for (const p of q.pipes) {
      b.timechart = undefined;
      pipeDef(p).compile(p, b);
    }
  }
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

/** The stage's order, then the core columns it has and does not order by yet. */
function withTiebreak(b: StageBuilder): OrderKey[] {
  const used = new Set(b.order.flatMap((k) => k.cols));
  const extra = [...CORE_NAMES].filter((n) => b.schema.has(n) && !used.has(n)).map((n) => ({ sql: ident(n), desc: false, cols: [n] }));
  return [...b.order, ...extra];
}

/** The SELECT list of a result: times as RFC 3339 text with microseconds (as answers print them), the rest as stored. */
export function selectList(columns: { name: string; type: ColType }[]): string {
  return columns.map((c) => (c.type === 'time' ? `${timeText(ident(c.name))} AS ${ident(c.name)}` : ident(c.name))).join(', ');
}
