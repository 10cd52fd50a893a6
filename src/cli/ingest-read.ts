import { closeSync, openSync, readSync, statSync, createReadStream } from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CliError } from './errors.js';

/**
 * Reading what `svc ingest` sends: a file or stdin (`-`), gunzipped when it is gzip (`.gz` or
 * the magic bytes), cut into batches of whole lines. Lines are numbered from 1 over the whole
 * input, every LF counting (blank lines too, as the server counts them), so that a server's
 * `firstErrors[].line` maps back to the file and `--from-line` resumes where a run stopped.
 */

export type Format = 'ndjson' | 'text';

export interface Batch {
  /** Whole lines, each with its LF (the input's last line may have none). */
  body: Buffer;
  /** Line number of the batch's first line in its input. */
  firstLine: number;
  lines: number;
  /** Bytes of the input up to the batch's end (for gzip: the compressed bytes read so far): progress and ETA. */
  inputBytes: number;
}

export interface BatchLimits {
  lines: number;
  bytes: number;
  /** A batch not yet full is sent after the input gave nothing for this long (a live pipe: `tail -f | svc ingest -`). */
  idleMs?: number;
}

export interface InputSource {
  /** As given on the command line (`-` for stdin). */
  name: string;
  /** Size in bytes when known (a regular file): the progress bar's total. */
  size: number | undefined;
  /** Bytes read so far from the input itself (before gunzip; read ahead of the batches). */
  bytesRead(): number;
  /** The input is gzip: only the compressed bytes read tell the progress. */
  gzip: boolean;
  /** The decoded bytes. */
  chunks: AsyncIterable<Buffer>;
}

const GZIP_MAGIC = [0x1f, 0x8b];

function fileIsGzip(path: string): boolean {
  if (path.endsWith('.gz')) return true;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    closeSync(fd);
  }
}

/** Opens a file or stdin; throws CliError when the file cannot be read. */
export async function openInput(name: string): Promise<InputSource> {
  let raw: AsyncIterable<Buffer>;
  let size: number | undefined;
  let gzip: boolean;
  if (name === '-') {
    const it = (process.stdin as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const first = await it.next();
    const head = first.done ? Buffer.alloc(0) : first.value;
    gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
    raw = (async function* () {
      if (!first.done) yield head;
      for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
    })();
  } else {
    try {
      const st = statSync(name);
      if (!st.isFile()) throw new CliError(`cannot read ${name}: not a file`);
      size = st.size;
      gzip = fileIsGzip(name);
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    raw = createReadStream(name, { highWaterMark: 256 * 1024 });
  }
  let read = 0;
  const counted = (async function* () {
    for await (const c of raw) {
      read += c.length;
      yield c;
    }
  })();
  const chunks: AsyncIterable<Buffer> = gzip
    ? pipeline(Readable.from(counted), createGunzip(), () => undefined)
    : counted;
  return { name, size, bytesRead: () => read, chunks, gzip };
}

/** The chunks of `src`, and `undefined` each time none came for `idleMs`. */
async function* withIdle(src: AsyncIterable<Buffer>, idleMs: number): AsyncGenerator<Buffer | undefined> {
  const it = src[Symbol.asyncIterator]();
  let pending = it.next();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), idleMs)));
    const r = await Promise.race([pending, idle]);
    clearTimeout(timer);
    if (r === 'idle') {
      yield undefined;
      continue;
    }
    if (r.done) return;
    pending = it.next();
    yield r.value;
  }
}

/**
 * The input's lines from `fromLine` on, in batches of at most `limits` (a longer line is a batch
 * of its own). Lines before `fromLine` are read and dropped.
 */
export async function* batches(input: InputSource, limits: BatchLimits, fromLine = 1): AsyncGenerator<Batch> {
  let parts: Buffer[] = [];
  let bytes = 0;
  let lines = 0;
  let lineNo = 0; // lines completed so far
  let first = 0;
  let rest: Buffer = Buffer.alloc(0);
  let consumed = 0; // bytes of the lines handed to batches so far, the dropped ones included
  /** `end`: the input's offset (decoded) just after the batch. */
  const cut = (end: number): Batch => {
    const b = { body: Buffer.concat(parts), firstLine: first, lines, inputBytes: input.gzip ? input.bytesRead() : end };
    parts = [];
    bytes = 0;
    lines = 0;
    return b;
  };
  const add = (line: Buffer): Batch | undefined => {
    lineNo++;
    consumed += line.length;
    if (lineNo < fromLine) return undefined;
    const full = lines > 0 && (lines >= limits.lines || bytes + line.length > limits.bytes);
    const b = full ? cut(consumed - line.length) : undefined;
    if (lines === 0) first = lineNo;
    parts.push(line);
    bytes += line.length;
    lines++;
    return b;
  };
  for await (const chunk of withIdle(input.chunks, limits.idleMs ?? 1000)) {
    if (chunk === undefined) {
      if (lines > 0) yield cut(consumed);
      continue;
    }
    const buf = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      const b = add(buf.subarray(start, nl + 1));
      start = nl + 1;
      if (b) yield b;
    }
    rest = Buffer.from(buf.subarray(start));
  }
  if (rest.length > 0) {
    const b = add(rest);
    if (b) yield b;
  }
  if (lines > 0) yield cut(consumed);
}

/** `auto`: NDJSON when the first non-blank line starts with `{`, else text (one event per line). */
export function detectFormat(body: Buffer): Format {
  const text = body
    .subarray(0, 64 * 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? '';
  return line.trimStart().startsWith('{') ? 'ndjson' : 'text';
}

export const CONTENT_TYPE: Record<Format, string> = {
  ndjson: 'application/x-ndjson',
  text: 'text/plain; charset=utf-8',
};
