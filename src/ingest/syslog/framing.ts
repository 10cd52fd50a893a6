import { cutUtf8Bytes } from '../../events/limits.js';

/** A byte stream split into frames: the bytes of an unfinished frame wait for the next chunk. */
export abstract class StreamFramer<T> {
  protected buf: Buffer = Buffer.alloc(0);

  /** Feeds a chunk; returns the frames it finished. */
  push(chunk: Buffer): T[] {
    const out: T[] = [];
    const data = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let p = 0;
    while (p < data.length) {
      const next = this.step(data, p, out);
      if (next < 0) break;
      p = next;
    }
    this.buf = p >= data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(p));
    return out;
  }

  /** Reads what starts at p (a frame, or bytes to skip) into out; the position after it, or -1 when more bytes are needed. */
  protected abstract step(data: Buffer, p: number, out: T[]): number;
}

/**
 * Splits a syslog TCP byte stream into messages (RFC 6587): octet-counted frames (`LEN SP MSG`,
 * chosen per frame when it starts with a digit) or LF-delimited lines. Frames longer than
 * `maxFrame` never grow the buffer past it: a long line or an over-long counted frame is cut at
 * maxFrame (at a UTF-8 character boundary) and the rest dropped; each is counted in `oversized`.
 * Not shared between connections.
 */
export class SyslogFramer extends StreamFramer<string> {
  /** Bytes still to drop (rest of an over-long frame); Infinity = until the next LF. */
  private skip = 0;
  /** Frames cut or skipped because they were longer than maxFrame. */
  oversized = 0;

  constructor(private readonly maxFrame: number) {
    super();
  }

  /** Skips the rest of an over-long frame, or reads a message (trailing CR/LF/NUL trimmed). */
  protected step(data: Buffer, p: number, out: string[]): number {
    if (this.skip === Infinity) {
      const lf = data.indexOf(0x0a, p);
      if (lf < 0) return data.length;
      this.skip = 0;
      return lf + 1;
    }
    if (this.skip > 0) {
      const n = Math.min(this.skip, data.length - p);
      this.skip -= n;
      return p + n;
    }
    return this.frameAt(data, p, out);
  }

  /** Reads one frame at p into out; returns the position after it, or -1 when more bytes are needed. */
  private frameAt(data: Buffer, p: number, out: string[]): number {
    const c = data[p];
    if (c === 0x0a || c === 0x0d || c === 0x00 || c === 0x20) return p + 1; // stray separators
    if (c >= 0x30 && c <= 0x39) {
      let q = p;
      while (q < data.length && q - p < 10 && data[q] >= 0x30 && data[q] <= 0x39) q++;
      if (q >= data.length) return -1;
      if (data[q] === 0x20) {
        const len = Number(data.toString('latin1', p, q));
        const start = q + 1;
        if (len > this.maxFrame) {
          // cut, as an over-long LF line is: keep its first maxFrame bytes, skip the rest
          if (data.length - start < this.maxFrame) return -1;
          this.oversized++;
          out.push(trimEnd(cutUtf8Bytes(data, start, start + this.maxFrame)));
          this.skip = len - this.maxFrame;
          return start + this.maxFrame;
        }
        if (data.length - start < len) return -1;
        out.push(trimEnd(data.toString('utf8', start, start + len)));
        return start + len;
      }
      // digits not followed by a space: an LF-framed line that starts with a digit
    }
    const lf = data.indexOf(0x0a, p);
    if (lf < 0) {
      if (data.length - p <= this.maxFrame) return -1;
      this.oversized++;
      out.push(trimEnd(cutUtf8Bytes(data, p, p + this.maxFrame)));
      this.skip = Infinity;
      return p + this.maxFrame;
    }
    if (lf - p > this.maxFrame) {
      this.oversized++;
      out.push(trimEnd(cutUtf8Bytes(data, p, p + this.maxFrame)));
    } else out.push(trimEnd(data.toString('utf8', p, lf)));
    return lf + 1;
  }

  /** What remains at end of stream (a last line without LF). */
  end(): string[] {
    const rest = this.skip > 0 ? '' : trimEnd(this.buf.toString('utf8'));
    this.buf = Buffer.alloc(0);
    return rest.length > 0 ? [rest] : [];
  }
}

/** Removes trailing LF, CR and NUL (rsyslog's octet count includes its trailing LF). */
export function trimEnd(s: string): string {
  let e = s.length;
  while (e > 0) {
    const c = s.charCodeAt(e - 1);
    if (c !== 10 && c !== 13 && c !== 0) break;
    e--;
  }
  return e === s.length ? s : s.slice(0, e);
}
