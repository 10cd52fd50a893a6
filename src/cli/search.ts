import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { SearchResult } from '../query/types.js';
import { note, write, type CliContext } from './context.js';
import { CliError } from './errors.js';
import { caretLines, eventsTable, plural, rowsTable } from './format.js';
import { ApiError, type Query } from './http-client.js';
import { choice, intIn } from './options.js';
import { paint } from './terminal.js';

export const OUTPUTS = ['table', 'json', 'ndjson', 'csv'] as const;
export type Output = (typeof OUTPUTS)[number];

export interface SearchOptions {
  env?: string;
  index?: string;
  from?: string;
  to?: string;
  limit: number;
  output: Output;
}

/** Most events or rows /api/search answers; csv and ndjson stream from /api/export, which allows more. */
const SEARCH_MAX = 10_000;
const EXPORT_MAX = 1_000_000;

/** A search's error for the terminal: the server's message, and for a parse error the query with a caret. */
export function queryError(e: unknown, q: string): unknown {
  if (!(e instanceof ApiError)) return e;
  const pos = e.details.position;
  const detail = e.code === 'invalid_query' && typeof pos === 'number' ? caretLines(q, pos) : [];
  return new CliError(e.message, 1, detail);
}

function footer(ctx: CliContext, r: SearchResult): void {
  const shown = r.rows ? plural(r.rows.length, 'row') : `${r.events.length} of ${plural(r.meta.matched, 'event')}`;
  note(paint(ctx.errColor, 'dim', `${shown} (scanned ${r.meta.scanned}, ${Math.round(r.meta.tookMs)} ms)`));
  if (r.meta.hint) note(r.meta.hint.message);
}

async function searchJson(ctx: CliContext, query: Query, output: 'table' | 'json'): Promise<void> {
  // POST: a long query in a URL would pass Node's 16 KiB header limit (431)
  const body = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''));
  const r = await ctx.client().post<SearchResult>('/api/search', body);
  if (output === 'json') return write(JSON.stringify(r, null, 2) + '\n');
  await write(r.columns ? rowsTable(r.columns, r.rows ?? [], ctx.out) : eventsTable(r.events, ctx.out));
  footer(ctx, r);
}

/** csv and ndjson: GET /api/export streamed to stdout (RFC 4180 CSV is written by the server). */
async function searchExport(ctx: CliContext, query: Query, format: 'csv' | 'ndjson'): Promise<void> {
  const { limit, ...rest } = query;
  const res = await ctx.client().request('GET', '/api/export', { query: { ...rest, format, max: limit } });
  if (!res.body) return;
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), process.stdout, {
      end: false,
    });
  } catch (e) {
    if ((e as { code?: string }).code === 'EPIPE') return; // `svc search … | head`: the reader had enough
    throw new CliError(`the export was cut short (${(e as Error).message}): the output is incomplete`);
  }
}

async function search(ctx: CliContext, q: string, opts: SearchOptions): Promise<void> {
  const exporting = opts.output === 'csv' || opts.output === 'ndjson';
  if (!exporting && opts.limit > SEARCH_MAX)
    throw new CliError(
      `--limit: at most ${SEARCH_MAX} with --output ${opts.output} (csv and ndjson take up to ${EXPORT_MAX})`,
      2,
    );
  const query: Query = { q, env: opts.env, index: opts.index, from: opts.from, to: opts.to, limit: opts.limit };
  try {
    if (opts.output === 'csv' || opts.output === 'ndjson') await searchExport(ctx, query, opts.output);
    else await searchJson(ctx, query, opts.output);
  } catch (e) {
    throw queryError(e, q);
  }
}

export function registerSearch(program: Command, ctx: CliContext): void {
  program
    .command('search')
    .description("search events: svc search 'error | stats count by host'")
    .argument('<query>', "a query in svc's language (docs/query-language.md)")
    .option('--env <env>', 'environment (default: every one you may read)')
    .option('--index <index>', 'index (default: every one)')
    .option('--from <time>', 'start: RFC 3339, epoch seconds, or relative like -15m, -1d@d (default: all time)')
    .option('--to <time>', 'end (default: now)')
    .option(
      '--limit <n>',
      `most events or rows (table and json up to ${SEARCH_MAX}; csv and ndjson up to ${EXPORT_MAX})`,
      intIn(1, EXPORT_MAX),
      100,
    )
    .addOption(
      choice(
        '-o, --output <format>',
        "table (aligned, for a terminal), json (the API's answer), ndjson or csv (RFC 4180)",
        OUTPUTS,
        'table',
      ),
    )
    .action((q: string, opts: SearchOptions) => search(ctx, q, opts));
}
