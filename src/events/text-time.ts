import { inTimeWindow, leadingTimestamp, leadingTimestampText, type TimeContext } from './timestamp.js';

/**
 * The time of each line of a text body, one rule for native text/plain and HEC raw
 * (docs/native-ingest.md "Time of a text line"):
 *
 * 1. a line with its own leading timestamp (timestamp.ts leadingTimestamp) takes it;
 * 2. a continuation line (isContinuation: a stack frame, an indented line) takes the time of the
 *    event before it in the same body, as it belongs to that record;
 * 3. any other line starts a new record without a time: it takes the arrival time.
 *
 * Lines of unrelated sources side by side (a shipper that strips syslog headers, several files
 * in one request) therefore never lend each other a time. svc keeps every line its own event
 * (nothing is merged), so a time is only inherited where the line's shape says whose it is.
 */

/** A Java/JavaScript stack frame: `at com.x.Y.m(Y.java:12)`, `at Object.<anonymous> (/a.js:1:2)`, `at /a.js:1:2`. */
const FRAME_RE = /^at (?:[\w$./<>-]+\(|.+ \(.*:\d+:\d+\)$|\S+:\d+:\d+$)/;
/** The lines of a printed Java throwable or Python traceback that come without indentation. */
const TRACE_RE =
  /^(?:Caused by: |Suppressed: |\.\.\. \d+ (?:more|common frames omitted)|Traceback \(most recent call last\):|During handling of the above exception|The above exception was the direct cause)/;
/**
 * An exception's own line: a qualified class (`java.io.IOException: disconnected`) or a Python
 * class (`ValueError: bad`, `KeyError`) named …Exception/…Error, alone or before `:`. Not a bare
 * `Error: …`, which is how many programs start an ordinary message.
 */
const EXCEPTION_RE =
  /^(?:(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*|[A-Z][A-Za-z0-9_]*)(?:Exception|Error|Throwable)(?::|$)/;

/**
 * Does `line` continue the record before it? It starts with a space or tab (stack frames, Python's
 * `  File …`, indented dumps), or is a line of a stack trace that comes unindented: a frame
 * `at …`, `Caused by:`, `Suppressed:`, `... N more`, an exception's class line, Python's
 * `Traceback …` and chained-exception lines — the shapes Splunk's line merging and the multiline
 * parsers of Filebeat and Fluent Bit treat as the rest of an event.
 */
export function isContinuation(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 32 || c === 9) return true;
  // fast path: every other shape starts with a letter or `.`
  if (c === 46) return TRACE_RE.test(line);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36)) return false;
  return (c === 97 && FRAME_RE.test(line)) || TRACE_RE.test(line) || EXCEPTION_RE.test(line);
}

/**
 * Times the lines of one body in order. One per body: a continuation never inherits across
 * requests (the record before it may have come from another sender).
 */
export class TextLineTimes {
  /** The time the previous line's event took; undefined before the first line. */
  private previousUs: number | undefined;
  /** After timeOf: the text of the line's own timestamp when it was outside the window (for time_original), else undefined. */
  original: string | undefined;

  constructor(
    private readonly ctx: TimeContext,
    private readonly arrivalUs: number,
  ) {}

  /** The time of the next line of the body (non-blank, without its CR/LF). */
  timeOf(line: string): number {
    this.original = undefined;
    const t = leadingTimestamp(line, this.ctx);
    let us: number;
    if (t !== undefined) {
      if (inTimeWindow(t, this.ctx)) us = t;
      else {
        // a time outside the window: arrival time, the text kept (and its continuation lines follow it)
        us = this.arrivalUs;
        this.original = leadingTimestampText(line);
      }
    } else if (this.previousUs !== undefined && isContinuation(line)) us = this.previousUs;
    else us = this.arrivalUs;
    this.previousUs = us;
    return us;
  }
}
