import { refuseOutputlookup } from './run-outputlookup.js';
import type { Principal } from '../auth/principal.js';
import type { QueryResult, RelationInfo, StreamRows } from '../storage/types.js';
import { compile, type CompiledQuery } from './compile.js';
import { extent, prepare, scanSpec, type PlanDeps, type Prepared } from './prepare.js';
import { jsonValue, shapeTimechart, toEvent } from './results.js';
import { newestCutoff, sinceSpec } from './run-newest-cutoff.js';
import { SHAPE_ROWS } from './patterns/shape-sql.js';
import { patternsTable } from './patterns/template.js';
import { finalTranspose, transposeTable } from './pipes/pipe-transpose.js';
import { finalPatterns } from './pipes/pipe-patterns.js';
import { CORE_NAMES } from './schema.js';
import { usedFieldsSql } from './sql/used-fields.js';
import type { EventJson, ExportHead, ExportRequest, ExportSink, ExportSummary } from './types.js';

/**
 * A search's results streamed into a sink (GET /api/export): the same events, in the same order,
 * as /api/search answers (newest first), or the same table, without its 10,000-row cap.
 *
 * Time limit: SVC_SEARCH_TIMEOUT_SECS covers planning and the statement up to its first chunk of
 * rows (for events that includes sorting them), like any search. Once rows flow the limit is lifted:
 * a big export then takes as long as the client takes to read it. The client going away still stops
 * it, and the HTTP edge cuts off a client that reads nothing for SVC_REQUEST_TIMEOUT_SECS
 * (http/routes/export.ts).
 */

/** The time limit of one call, which an export lifts once it streams. */
export interface Deadline {
  lift(): void;
}

export const DEFAULT_EXPORT_MAX = 100_000;
export const MAX_EXPORT = 1_000_000;

type Exec = (sql: string) => Promise<QueryResult>;

/** Hands rows to the sink, beginning it (and lifting the deadline) with the first chunk or at the end. */
class Output {
  written = 0;
  private started = false;

  constructor(
    private readonly sink: ExportSink,
    private readonly deadline: Deadline,
    private readonly head: ExportHead,
  ) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.deadline.lift();
    await this.sink.begin(this.head);
  }

  async events(batch: EventJson[]): Promise<void> {
    await this.start();
    this.written += batch.length;
    if (batch.length) await this.sink.events(batch);
  }

  async rows(batch: unknown[][]): Promise<void> {
    await this.start();
    this.written += batch.length;
    if (batch.length) await this.sink.rows(batch);
  }

  async end(): Promise<ExportSummary> {
    await this.start();
    return { written: this.written, mode: this.head.mode };
  }
}

export async function exportRun(
  deps: PlanDeps,
  principal: Principal,
  req: ExportRequest,
  sink: ExportSink,
  deadline: Deadline,
): Promise<ExportSummary> {
  const p = await prepare(deps, principal, req);
  refuseOutputlookup(p.q, 'an export');
  const max = Math.min(Math.max(1, Math.floor(req.max ?? DEFAULT_EXPORT_MAX)), MAX_EXPORT);
  if (p.a.mode === 'table') return exportTable(deps, p, max, sink, deadline);
  return exportEvents(deps, p, max, req.fieldList === true, sink, deadline);
}

/**
 * Events newest first, at most `max`. A plain search takes search's two-step path (count and find
 * the time of the max-th newest on few columns, then read whole events from that time on); a
 * pipeline runs as one statement. Ties on time are broken by the core columns (compile's
 * `tiebreak`), so the field count a CSV header needs and the rows streamed after it are the same
 * rows.
 */
async function exportEvents(
  deps: PlanDeps,
  p: Prepared,
  max: number,
  fieldList: boolean,
  sink: ExportSink,
  deadline: Deadline,
): Promise<ExportSummary> {
  const empty = () => new Output(sink, deadline, { mode: 'events', ...(fieldList ? { fields: [] } : {}) }).end();
  if (!p.possible) return empty();
  let spec = scanSpec(p, '*');
  let limit = max;
  let sinceUs: number | undefined;
  if (p.a.plainEvents) {
    limit = Math.min(max, p.a.headN ?? Infinity);
    const first = await newestCutoff(deps.store, p, limit);
    if (first.n === 0 || first.cutoffUs === null) return empty();
    spec = sinceSpec(p, first.cutoffUs);
    sinceUs = first.cutoffUs;
  }
  const range = extent(deps.store, p);
  return deps.store.scan(spec, async (rel, exec, stream) => {
    const c = compile(p.q, rel, {
      nowMs: p.nowMs,
      range,
      limit,
      searchOnly: p.a.plainEvents,
      sinceUs,
      tiebreak: true,
      lookups: p.lookups,
      searchRange: { fromMs: p.fromMs, toMs: p.toMs },
    });
    const out = new Output(sink, deadline, {
      mode: 'events',
      ...(fieldList ? { fields: await usedFields(exec, c) } : {}),
    });
    for await (const chunk of stream(c.sql)) await out.events(chunk.rows.map((r) => toEvent(chunk.columns, r)));
    return out.end();
  });
}

/** User fields non-null in at least one row of the statement, sorted by name (a CSV header). */
async function usedFields(exec: Exec, c: CompiledQuery): Promise<string[]> {
  const names = c.columns.map((x) => x.name).filter((n) => !CORE_NAMES.has(n) && n !== '__ord');
  if (names.length === 0) return [];
  const r = await exec(usedFieldsSql(c, names));
  return names.filter((_, i) => Number(jsonValue(r.rows[0][i])) > 0).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A table: its columns and rows in its order, at most `max` rows. */
async function exportTable(
  deps: PlanDeps,
  p: Prepared,
  max: number,
  sink: ExportSink,
  deadline: Deadline,
): Promise<ExportSummary> {
  if (!p.possible) return new Output(sink, deadline, { mode: 'table', columns: [] }).end();
  const range = extent(deps.store, p);
  return deps.store.scan(scanSpec(p, p.a.fields), async (rel: RelationInfo, exec: Exec, stream: StreamRows) => {
    const patterns = finalPatterns(p.q.pipes);
    const c = compile(p.q, rel, {
      nowMs: p.nowMs,
      range,
      limit: patterns ? SHAPE_ROWS : max,
      lookups: p.lookups,
      searchRange: { fromMs: p.fromMs, toMs: p.toMs },
    });
    if (patterns) {
      // a final patterns merges every shape of its stage into templates: in memory, as /api/search does
      const r = await exec(c.sql);
      const table = patternsTable(
        patterns,
        r.rows.map((row) => row.map(jsonValue)),
        max,
      );
      const out = new Output(sink, deadline, { mode: 'table', columns: table.columns });
      await out.rows(table.rows);
      return out.end();
    }
    const transpose = finalTranspose(p.q.pipes);
    if (c.timechart || transpose) {
      // a final timechart is pivoted and its empty buckets filled, which needs every row of a
      // bucket at once, and a transpose turns rows into columns: shaped in memory as /api/search
      // does (at most 10,000 buckets)
      const r = await exec(c.sql);
      let table: { columns: string[]; rows: unknown[][] } = {
        columns: r.columns,
        rows: r.rows.map((row) => row.map(jsonValue)),
      };
      if (c.timechart) table = shapeTimechart(c.timechart, table.columns, table.rows);
      if (transpose) table = transposeTable(transpose, table.columns, table.rows);
      const out = new Output(sink, deadline, { mode: 'table', columns: table.columns });
      await out.rows(table.rows.slice(0, max));
      return out.end();
    }
    const out = new Output(sink, deadline, { mode: 'table', columns: c.columns.map((x) => x.name) });
    for await (const chunk of stream(c.sql)) await out.rows(chunk.rows.map((row) => row.map(jsonValue)));
    return out.end();
  });
}
