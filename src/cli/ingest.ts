import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { note, type CliContext } from './context.js';
import { CliError, usageError } from './errors.js';
import { batches, CONTENT_TYPE, detectFormat, openInput, type Format } from './ingest-read.js';
import { DEFAULT_RETRY, ingestCredential, sendBatch, type IngestAnswer } from './ingest-send.js';
import { plural } from './format.js';
import { choice, intIn, positiveInt } from './options.js';
import { Progress } from './progress.js';

interface IngestOptions {
  env?: string;
  index?: string;
  host?: string;
  source?: string;
  sourcetype?: string;
  format: 'auto' | Format;
  fromLine: number;
  batchLines: number;
  batchBytes: number;
  retries: number;
}

interface Totals {
  ingested: number;
  malformed: number;
  firstErrors: string[];
  lines: number;
}

/** Where a run stopped: the first line not known to be stored. */
class Stopped extends Error {
  constructor(
    readonly fileIndex: number,
    readonly line: number,
    readonly why: string,
    readonly maybeStored: boolean,
  ) {
    super(why);
  }
}

const MAX_SHOWN_ERRORS = 10;

interface Run {
  ctx: CliContext;
  opts: IngestOptions;
  token: string;
  progress: Progress;
  totals: Totals;
  /** Ctrl+C once: finish the batch in flight, then stop. */
  soft: AbortController;
  /** Ctrl+C twice: abort the request in flight. */
  hard: AbortController;
}

/** Sends one input; any failure becomes Stopped at the first line not stored. */
async function ingestInput(run: Run, files: string[], i: number): Promise<void> {
  const at = { line: i === 0 ? run.opts.fromLine : 1 };
  try {
    await sendInput(run, files, i, at);
  } catch (e) {
    throw e instanceof Stopped ? e : new Stopped(i, at.line, (e as Error).message, false);
  }
}

async function sendInput(run: Run, files: string[], i: number, at: { line: number }): Promise<void> {
  const { opts, totals, progress } = run;
  const name = files[i];
  const input = await openInput(name);
  let format: Format | undefined = opts.format === 'auto' ? undefined : opts.format;
  const query = {
    env: opts.env,
    index: opts.index,
    host: opts.host,
    source: opts.source ?? (name === '-' ? undefined : resolve(name)),
    sourcetype: opts.sourcetype,
  };
  progress.startInput();
  const state = () => ({
    name: name === '-' ? 'stdin' : basename(name),
    bytesRead: input.bytesRead(),
    bytesTotal: input.size,
    events: totals.ingested,
  });
  for await (const b of batches(input, { lines: opts.batchLines, bytes: opts.batchBytes }, at.line)) {
    if (run.soft.signal.aborted) throw new Stopped(i, b.firstLine, 'interrupted', false);
    format ??= detectFormat(b.body);
    const onWait = (ms: number, why: string) => {
      if (!process.stderr.isTTY) note(`svc ingest: ${why}; trying again in ${(ms / 1000).toFixed(1)} s`);
      progress.update({ ...state(), waiting: `${why}: retry in ${(ms / 1000).toFixed(1)} s` }, true);
    };
    let a: IngestAnswer;
    try {
      a = await sendBatch(
        run.ctx.client(),
        {
          token: run.token,
          query,
          body: b.body,
          contentType: CONTENT_TYPE[format],
          signal: run.hard.signal,
          waitSignal: run.soft.signal,
        },
        { ...DEFAULT_RETRY, retries: opts.retries },
        onWait,
      );
    } catch (e) {
      throw new Stopped(
        i,
        b.firstLine,
        run.soft.signal.aborted ? 'interrupted' : (e as Error).message,
        run.hard.signal.aborted,
      );
    }
    totals.ingested += a.ingested;
    totals.malformed += a.errors;
    totals.lines += b.lines;
    at.line = b.firstLine + b.lines;
    for (const fe of a.firstErrors)
      if (totals.firstErrors.length < MAX_SHOWN_ERRORS)
        totals.firstErrors.push(`${name}:${b.firstLine + fe.line - 1}: ${fe.message}`);
    progress.update({ ...state(), bytesRead: b.inputBytes });
  }
  progress.update(state());
  progress.finish();
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The command that carries on from where the run stopped. */
function resumeCommand(opts: IngestOptions, files: string[], s: Stopped): string {
  const args = ['svc', 'ingest', '--from-line', String(s.line)];
  for (const k of ['env', 'index', 'host', 'source', 'sourcetype'] as const)
    if (opts[k] !== undefined) args.push(`--${k}`, opts[k]);
  if (opts.format !== 'auto') args.push('--format', opts.format);
  return [...args, ...files.slice(s.fileIndex)].map(shellQuote).join(' ');
}

function summary(t: Totals, files: string[], secs: number): string {
  const rate = secs > 0 ? Math.round(t.ingested / secs).toLocaleString('en-US') : '-';
  const inputs = files.length === 1 ? (files[0] === '-' ? 'stdin' : files[0]) : `${files.length} inputs`;
  return `ingested ${plural(t.ingested, 'event')} from ${inputs} in ${secs.toFixed(1)} s (${rate} events/s); ${plural(t.malformed, 'malformed line')}`;
}

function checkInputs(files: string[]): string[] {
  const list = files.length > 0 ? files : ['-'];
  if (list.filter((f) => f === '-').length > 1) throw usageError('stdin (-) can be read once');
  if (list.includes('-') && process.stdin.isTTY && files.length === 0)
    throw usageError('name the files to ingest, or pipe lines into svc ingest -');
  return list;
}

async function ingest(ctx: CliContext, fileArgs: string[], opts: IngestOptions): Promise<void> {
  const files = checkInputs(fileArgs);
  const cred = await ingestCredential(ctx, opts.env);
  if (cred.description.startsWith('a temporary')) note(`svc ingest: using ${cred.description}`);
  const run: Run = {
    ctx,
    opts,
    token: cred.token,
    progress: new Progress(process.stderr.isTTY === true, ctx.errColor),
    totals: { ingested: 0, malformed: 0, firstErrors: [], lines: 0 },
    soft: new AbortController(),
    hard: new AbortController(),
  };
  const onSigint = () => (run.soft.signal.aborted ? run.hard.abort() : run.soft.abort());
  process.on('SIGINT', onSigint);
  const started = Date.now();
  let stopped: Stopped | undefined;
  try {
    for (let i = 0; i < files.length; i++) await ingestInput(run, files, i);
  } catch (e) {
    if (!(e instanceof Stopped)) throw e;
    stopped = e;
  } finally {
    process.off('SIGINT', onSigint);
    run.progress.finish();
    await cred.release();
  }
  for (const line of run.totals.firstErrors) note(`malformed: ${line}`);
  process.stdout.write(summary(run.totals, files, (Date.now() - started) / 1000) + '\n');
  if (!stopped) return;
  const where = files[stopped.fileIndex] === '-' ? 'stdin' : files[stopped.fileIndex];
  const detail = stopped.maybeStored ? [`the batch from line ${stopped.line} may or may not have been stored`] : [];
  detail.push(
    files[stopped.fileIndex] === '-'
      ? 'stdin cannot be resumed: save it to a file first'
      : `resume with: ${resumeCommand(opts, files, stopped)}`,
  );
  throw new CliError(`stopped at ${where} line ${stopped.line}: ${stopped.why}`, 1, detail);
}

export function registerIngest(program: Command, ctx: CliContext): void {
  program
    .command('ingest')
    .description('send log files (or stdin: -) to svc, in batches, with a progress bar on a terminal')
    .argument('[files...]', 'files to send (.gz read through gunzip); - or nothing: stdin')
    .option('--env <env>', "environment (default: the ingest token's, else default)")
    .option('--index <index>', "index (default: the token's pin, else main)")
    .option('--host <host>', 'host of events that name none')
    .option('--source <source>', "source of events that name none (default: the file's absolute path)")
    .option('--sourcetype <type>', 'sourcetype of events that name none')
    .addOption(
      choice(
        '--format <format>',
        'auto (NDJSON when the first line starts with {), ndjson or text (one event per line)',
        ['auto', 'ndjson', 'text'] as const,
        'auto',
      ),
    )
    .option('--from-line <n>', 'start the first file at this line (resume a stopped run)', positiveInt, 1)
    .option('--batch-lines <n>', 'most lines per request', intIn(1, 1_000_000), 5000)
    .option(
      '--batch-bytes <n>',
      'most bytes per request (a longer line goes alone)',
      intIn(1024, 64 * 1024 * 1024),
      1024 * 1024,
    )
    .option(
      '--retries <n>',
      'tries again after 429/503 or a refused connection, with backoff (Retry-After honoured)',
      intIn(0, 100),
      DEFAULT_RETRY.retries,
    )
    .action((files: string[], opts: IngestOptions) => ingest(ctx, files, opts));
}
