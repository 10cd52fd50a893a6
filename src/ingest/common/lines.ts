/**
 * The one line reader of the protocols whose bodies are lines (native text and NDJSON, HEC raw),
 * over the decompressed bytes:
 * - a UTF-8 byte-order mark at the very start is not content (editors and Windows tools write one);
 * - lines end at LF; a CR before the LF is dropped (CRLF), and the last line needs no LF;
 * - a line of only spaces, tabs and CRs is blank: skipped, but it counts for line numbers, which
 *   are 1-based over the whole body so an error names the line the client sent.
 * Size limits are not the reader's: every event, however framed, passes events/limits.ts fitEvent.
 *
 * Works on byte offsets so that each caller decodes only the line it keeps into its own string
 * (not a slice of one big body string, which would keep the whole body alive while events wait in
 * the writer's buffer). Pure and allocation-free: runs on the event loop and in decode workers.
 */

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

/** Bytes of a UTF-8 byte-order mark at the start of `buf`: 3, or 0 without one. */
export function bomLength(buf: Uint8Array): number {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

/** Offset of the first byte of content: after the BOM and any spaces, tabs, CRs and LFs (`buf.length` if none). */
export function firstContent(buf: Uint8Array): number {
  let i = bomLength(buf);
  while (i < buf.length) {
    const c = buf[i];
    if (c !== SPACE && c !== TAB && c !== CR && c !== LF) break;
    i++;
  }
  return i;
}

/** End (exclusive, before any CR) of the line that starts at `start`: its LF, or the end of `buf`. */
export function lineEnd(buf: Buffer, start: number): number {
  const nl = buf.indexOf(LF, start);
  return nl < 0 ? buf.length : nl;
}

/** Calls `fn(start, end, lineNo)` for every non-blank line of `buf` (`end` excludes the CR/LF). */
export function forEachLine(buf: Buffer, fn: (start: number, end: number, lineNo: number) => void): void {
  const len = buf.length;
  let start = bomLength(buf);
  let lineNo = 0;
  while (start < len) {
    const nl = lineEnd(buf, start);
    lineNo++;
    let end = nl;
    if (end > start && buf[end - 1] === CR) end--;
    if (!isBlank(buf, start, end)) fn(start, end, lineNo);
    start = nl + 1;
  }
}

function isBlank(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== SPACE && c !== TAB && c !== CR) return false;
  }
  return true;
}
