import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { SvcError } from '../errors/svc-error.js';

/** Column names: at most this many, each at most this long. */
export const MAX_COLUMNS = 1000;
const MAX_NAME = 128;
/** One row's text; a longer one is almost surely an unclosed quote swallowing the file. */
const MAX_ROW_BYTES = 1024 * 1024;
/** Bytes handed to the parser at a time: the event loop gets a turn between them. */
const CHUNK = 64 * 1024;

/** Where the rows of a CSV go while it is read; `header` is awaited before the first row. */
export interface CsvSink {
  header(columns: string[]): Promise<void>;
  /** One row, as many values as columns; an empty cell is null (no value, as for an absent field). */
  row(values: (string | null)[]): void;
}

/** RFC 4180 as svc reads it; rows of other lengths are checked by readLookupCsv itself, for its message. */
const OPTIONS = { bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_ROW_BYTES };

const bad = (message: string) => new SvcError('invalid_input', message, { details: { field: 'body' } });

/**
 * Reads a lookup table's CSV (RFC 4180: commas, `"` quotes, a `""` inside quotes; a UTF-8 BOM and
 * blank lines are skipped) into `sink`. The first row names the columns (trimmed; non-empty,
 * distinct without regard to case, as DuckDB compares names). Throws invalid_input saying what is
 * wrong and on which line: no header, a ragged row, a broken quote, no rows.
 */
export async function readLookupCsv(data: Buffer, sink: CsvSink): Promise<{ columns: string[]; rows: number }> {
  const parser = Readable.from(chunks(data)).pipe(parse({ ...OPTIONS, info: true }));
  let columns: string[] | undefined;
  let rows = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!columns) {
        columns = checkHeader(record);
        await sink.header(columns);
        continue;
      }
      if (record.length !== columns.length)
        throw bad(
          `line ${info.lines}: ${record.length} ${record.length === 1 ? 'value' : 'values'}, but the header has ${columns.length} columns`,
        );
      sink.row(record.map((v) => (v === '' ? null : v)));
      rows++;
    }
  } catch (e) {
    throw e instanceof CsvError ? bad(csvProblem(e)) : e;
  }
  if (!columns) throw bad('the CSV is empty: want a header row naming the columns, then one row per entry');
  if (rows === 0) throw bad('the CSV has a header but no rows');
  return { columns, rows };
}

/** The first `n` rows after the header of a CSV already checked by readLookupCsv, empty cells as null. */
export async function firstRows(data: Buffer, n: number): Promise<(string | null)[][]> {
  const out: (string | null)[][] = [];
  let header = true;
  // the stream is destroyed at the break: the rest of the file is never parsed
  for await (const record of Readable.from(chunks(data)).pipe(parse(OPTIONS)) as AsyncIterable<string[]>) {
    if (header) header = false;
    else out.push(record.map((v) => (v === '' ? null : v)));
    if (out.length >= n) break;
  }
  return out;
}

function* chunks(data: Buffer): Generator<Buffer> {
  for (let i = 0; i < data.length; i += CHUNK) yield data.subarray(i, i + CHUNK);
}

function checkHeader(record: string[]): string[] {
  if (record.length > MAX_COLUMNS) throw bad(`the header has ${record.length} columns; at most ${MAX_COLUMNS}`);
  const names = record.map((n) => n.trim());
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    if (name === '')
      throw bad(`line 1: column ${i + 1} of the header has no name (the first row must name every column)`);
    if (name.length > MAX_NAME) throw bad(`line 1: column ${i + 1}'s name is longer than ${MAX_NAME} characters`);
    const first = seen.get(name.toLowerCase());
    if (first !== undefined)
      throw bad(
        `line 1: duplicate column name ${JSON.stringify(name)} (columns ${first + 1} and ${i + 1}; names compare without case)`,
      );
    seen.set(name.toLowerCase(), i);
  });
  return names;
}

/** csv-parse's error in our words, with its line. */
function csvProblem(e: CsvError): string {
  const line = typeof e.lines === 'number' ? `line ${e.lines}: ` : '';
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `${line}a quoted value is never closed`;
    case 'INVALID_OPENING_QUOTE':
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `${line}a stray quote: quote a whole value ("a, b") and write a quote inside one as two ("say ""hi""")`;
    case 'CSV_MAX_RECORD_SIZE':
      return `${line}a row longer than ${MAX_ROW_BYTES / 1024} KiB (an unclosed quote?)`;
    default:
      return `${line}cannot read the CSV: ${e.message}`;
  }
}
