import type { PipeDef } from './pipe.js';
import { dedupPipe, type DedupPipe } from './pipe-dedup.js';
import { evalPipe, type EvalPipe } from './pipe-eval.js';
import { fieldsPipe, type FieldsPipe } from './pipe-fields.js';
import { headPipe, type HeadPipe } from './pipe-head.js';
import { rexPipe, type RexPipe } from './pipe-rex.js';
import { sortPipe, type SortPipe } from './pipe-sort.js';
import { statsPipe, type StatsPipe } from './pipe-stats.js';
import { tablePipe, type TablePipe } from './pipe-table.js';
import { tailPipe, type TailPipe } from './pipe-tail.js';
import { timechartPipe, type TimechartPipe } from './pipe-timechart.js';
import { rarePipe, topPipe, type TopPipe } from './pipe-top.js';
import { wherePipe, type WherePipe } from './pipe-where.js';
import { renamePipe, type RenamePipe } from './pipe-rename.js';
import { binPipe, bucketPipe, type BinPipe } from './pipe-bin.js';
import { eventstatsPipe, type EventstatsPipe } from './pipe-eventstats.js';
import { fillnullPipe, type FillnullPipe } from './pipe-fillnull.js';
import { fieldsummaryPipe, type FieldsummaryPipe } from './pipe-fieldsummary.js';
import { lookupPipe, type LookupPipe } from './pipe-lookup.js';
import { streamstatsPipe, type StreamstatsPipe } from './pipe-streamstats.js';
import { chartPipe, type ChartPipe } from './pipe-chart.js';
import { transactionPipe, type TransactionPipe } from './pipe-transaction.js';
import { spathPipe, type SpathPipe } from './pipe-spath.js';
import { kvPipe, logfmtPipe, type KvPipe } from './pipe-kv.js';
import { extractPipe, type ExtractPipe } from './pipe-extract.js';
import { appendPipeWith, type AppendPipe } from './pipe-append.js';
import { patternsPipe, type PatternsPipe } from './pipe-patterns.js';
import { searchPipe, type SearchPipe } from './pipe-search.js';
import { convertPipe, type ConvertPipe } from './pipe-convert.js';
import { regexPipe, type RegexPipe } from './pipe-regex.js';
import { mvexpandPipe, type MvexpandPipe } from './pipe-mvexpand.js';
import { makemvPipe, type MakemvPipe } from './pipe-makemv.js';
import { joinPipeWith, type JoinPipe } from './pipe-join.js';
import { inputlookupPipe, type InputlookupPipe } from './pipe-inputlookup.js';
import { outputlookupPipe, type OutputlookupPipe } from './pipe-outputlookup.js';
import { tstatsPipe, type TstatsPipe } from './pipe-tstats.js';
import { makeresultsPipe, type MakeresultsPipe } from './pipe-makeresults.js';
import { formatPipe, type FormatPipe } from './pipe-format.js';
import { returnPipe, type ReturnPipe } from './pipe-return.js';
import { appendpipePipeWith, type AppendpipePipe, type PipelineHelpers } from './pipe-appendpipe.js';
import { foreachPipe, type ForeachPipe } from './pipe-foreach.js';
import { multisearchPipeWith, type MultisearchPipe } from './pipe-multisearch.js';
import { appendcolsPipeWith, type AppendcolsPipe } from './pipe-appendcols.js';
import { iplocationPipe, type IplocationPipe } from './pipe-iplocation.js';
import { collectPipe, type CollectPipe } from './pipe-collect.js';
import { addinfoPipe, type AddinfoPipe } from './pipe-addinfo.js';
import { fieldformatPipe, type FieldformatPipe } from './pipe-fieldformat.js';
import { nomvPipe, type NomvPipe } from './pipe-nomv.js';
import { addcoltotalsPipe, type AddcoltotalsPipe } from './pipe-addcoltotals.js';
import { fromjsonPipe, type FromjsonPipe } from './pipe-fromjson.js';
import { xmlkvPipe, type XmlkvPipe } from './pipe-xmlkv.js';
import { transposePipe, type TransposePipe } from './pipe-transpose.js';
import { printSearch } from '../search/filter-logic.js';
import type { Subquery } from '../parser-api.js';

export type PipeNode =
  | StatsPipe
  | TimechartPipe
  | WherePipe
  | EvalPipe
  | RexPipe
  | FieldsPipe
  | TablePipe
  | SpathPipe
  | KvPipe
  | ExtractPipe
  | SortPipe
  | HeadPipe
  | TailPipe
  | TopPipe
  | DedupPipe
  | RenamePipe
  | BinPipe
  | EventstatsPipe
  | FillnullPipe
  | FieldsummaryPipe
  | LookupPipe
  | StreamstatsPipe
  | ChartPipe
  | TransactionPipe
  | PatternsPipe
  | AppendPipe
  | SearchPipe
  | ConvertPipe
  | RegexPipe
  | MvexpandPipe
  | MakemvPipe
  | JoinPipe
  | InputlookupPipe
  | OutputlookupPipe
  | TstatsPipe
  | MakeresultsPipe
  | FormatPipe
  | ReturnPipe
  | AppendpipePipe
  | ForeachPipe
  | MultisearchPipe
  | AppendcolsPipe
  | IplocationPipe
  | CollectPipe
  | AddinfoPipe
  | FieldformatPipe
  | NomvPipe
  | AddcoltotalsPipe
  | FromjsonPipe
  | XmlkvPipe
  | TransposePipe;

/**
 * A query in canonical form (printer.ts); one that starts with a generating command prints as
 * `| <command> …`, without a search part.
 */
export function printQuery(q: Subquery): string {
  const pipes = q.pipes.map((p) => pipeDef(p as PipeNode).print(p as PipeNode));
  const first = q.pipes[0] as PipeNode | undefined;
  if (first && pipeDef(first).generating?.(first)) return `| ${pipes.join(' | ')}`;
  return [printSearch(q.search), ...pipes].join(' | ');
}

/** A subsearch as written in brackets: `[search <query>]`, or `[| inputlookup …]`. */
const printSub = (q: Subquery): string => {
  const text = printQuery(q);
  return `[${text.startsWith('|') ? text : `search ${text}`}]`;
};

// append and join hold a whole query: they print and inspect its pipes through this registry
const appendPipe = appendPipeWith(printSub, (q) =>
  q.pipes.some((p) => pipeDef(p as PipeNode).writes(p as PipeNode) === 'all'),
);
const joinPipe = joinPipeWith(printSub);

/** appendpipe's and foreach's pipelines, printed and inspected through this registry. */
const pipelines: PipelineHelpers = {
  print: (pipes) => {
    const text = pipes.map((p) => pipeDef(p as PipeNode).print(p as PipeNode)).join(' | ');
    const first = pipes[0] as PipeNode | undefined;
    return first && pipeDef(first).generating?.(first) ? `| ${text}` : text;
  },
  reads(pipes) {
    const defined = new Set<string>();
    const out = new Set<string>();
    for (const p of pipes as PipeNode[]) {
      const reads = pipeDef(p).reads(p);
      if (reads === '*') return '*';
      reads.filter((f) => !defined.has(f)).forEach((f) => out.add(f));
      const writes = pipeDef(p).writes(p);
      if (writes === 'all') break;
      writes.forEach((f) => defined.add(f));
    }
    return [...out];
  },
  writes(pipes) {
    const out = new Set<string>();
    for (const p of pipes as PipeNode[]) {
      const writes = pipeDef(p).writes(p);
      if (writes === 'all') return 'all';
      writes.forEach((f) => out.add(f));
    }
    return [...out];
  },
};
const appendpipePipe = appendpipePipeWith(pipelines);
const multisearchPipe = multisearchPipeWith(printSub);
const appendcolsPipe = appendcolsPipeWith(printSub);

/**
 * Every pipe command by name. A def only ever sees the nodes its own parse made (pipeDef looks it
 * up by the node's kind), so each is widened to the union once here.
 */
export const PIPES: Record<string, PipeDef<PipeNode>> = Object.fromEntries(
  [
    statsPipe,
    timechartPipe,
    wherePipe,
    evalPipe,
    rexPipe,
    fieldsPipe,
    tablePipe,
    sortPipe,
    headPipe,
    tailPipe,
    topPipe,
    rarePipe,
    dedupPipe,
    renamePipe,
    binPipe,
    bucketPipe,
    eventstatsPipe,
    fillnullPipe,
    fieldsummaryPipe,
    lookupPipe,
    streamstatsPipe,
    chartPipe,
    transactionPipe,
    spathPipe,
    kvPipe,
    logfmtPipe,
    extractPipe,
    patternsPipe,
    appendPipe,
    searchPipe,
    convertPipe,
    regexPipe,
    mvexpandPipe,
    makemvPipe,
    joinPipe,
    inputlookupPipe,
    outputlookupPipe,
    tstatsPipe,
    makeresultsPipe,
    formatPipe,
    returnPipe,
    appendpipePipe,
    foreachPipe,
    multisearchPipe,
    appendcolsPipe,
    iplocationPipe,
    collectPipe,
    addinfoPipe,
    fieldformatPipe,
    nomvPipe,
    addcoltotalsPipe,
    fromjsonPipe,
    xmlkvPipe,
    transposePipe,
  ].map((d) => [d.name, d as unknown as PipeDef<PipeNode>]),
);

export function pipeDef(n: PipeNode): PipeDef<PipeNode> {
  return PIPES[n.kind];
}
