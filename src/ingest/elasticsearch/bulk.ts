/**
 * The Elasticsearch bulk body: NDJSON pairs of an action line and (except for delete) a source
 * line. Pure parsing, no HTTP. `_type` and other per-action metadata are ignored.
 */

import { forEachLine } from '../common/lines.js';

export type BulkOpName = 'index' | 'create' | 'update' | 'delete';
const OPS_WITH_SOURCE = new Set(['index', 'create', 'update']);

export interface BulkOp {
  op: string;
  /** `_index` of the action, else the path's index. */
  index?: string;
  id?: string;
  /** The source document (index/create), undefined when missing or unparseable. */
  doc?: Record<string, unknown>;
  /** The source line as sent: the message of documents without a message field. */
  raw?: string;
  /** Why the source cannot be used, answered per item. */
  docError?: string;
}

export class BulkSyntaxError extends Error {}

/**
 * The non-blank lines of the body, as the line protocols read them (ingest/common/lines.ts: BOM,
 * CRLF, blank lines), each its own string: a document's source line becomes its message when it has
 * none, and must not keep the whole body alive. Action lines are numbered over the non-blank lines.
 */
function splitLines(body: Buffer): string[] {
  const out: string[] = [];
  forEachLine(body, (start, end) => out.push(body.toString('utf8', start, end)));
  return out;
}

function parseAction(line: string, lineNo: number): { op: string; meta: Record<string, unknown> } {
  let action: unknown;
  try {
    action = JSON.parse(line);
  } catch {
    throw new BulkSyntaxError(`cannot parse action line ${lineNo}: ${line.slice(0, 100)}`);
  }
  if (typeof action !== 'object' || action === null || Array.isArray(action)) {
    throw new BulkSyntaxError(`malformed action/metadata line [${lineNo}], expected START_OBJECT`);
  }
  const keys = Object.keys(action);
  if (keys.length !== 1)
    throw new BulkSyntaxError(
      `malformed action/metadata line [${lineNo}], expected one action but found ${keys.length}`,
    );
  const op = keys[0];
  const meta = (action as Record<string, unknown>)[op];
  return { op, meta: typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {} };
}

function parseSource(line: string | undefined): Pick<BulkOp, 'doc' | 'raw' | 'docError'> {
  if (line === undefined) return { docError: 'missing source line after the action line' };
  try {
    const doc: unknown = JSON.parse(line);
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc))
      return { doc: doc as Record<string, unknown>, raw: line };
    return { docError: 'the source is not a JSON object' };
  } catch (e) {
    return { docError: `cannot parse source: ${(e as Error).message}` };
  }
}

/**
 * Parses a bulk body. A malformed action line makes the whole request invalid (BulkSyntaxError,
 * as in Elasticsearch); a malformed source line only fails its item.
 */
export function parseBulk(body: Buffer, pathIndex?: string): BulkOp[] {
  const ops: BulkOp[] = [];
  const lines = splitLines(body);
  // fast path: shippers repeat the same action line; parse it once per request
  let lastLine = '';
  let last: { op: string; meta: Record<string, unknown> } | undefined;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const action = line === lastLine && last ? last : parseAction(line, n + 1);
    lastLine = line;
    last = action;
    const { op, meta } = action;
    // an empty _index is a name like any other, refused by the name rule (its item fails), not skipped
    const index = typeof meta._index === 'string' ? meta._index : pathIndex;
    const id = typeof meta._id === 'string' || typeof meta._id === 'number' ? String(meta._id) : undefined;
    const item: BulkOp = { op, index, id };
    if (OPS_WITH_SOURCE.has(op)) {
      n++;
      const src = parseSource(n < lines.length ? lines[n] : undefined);
      item.doc = src.doc;
      item.raw = src.raw;
      item.docError = src.docError;
    } else if (op !== 'delete') {
      throw new BulkSyntaxError(`malformed action/metadata line [${n + 1}], unknown action [${op}]`);
    }
    ops.push(item);
  }
  return ops;
}
