import { paint, truncate } from './terminal.js';

/**
 * The progress line of `svc ingest` on stderr, drawn only when stderr is a terminal: the input,
 * a bar and percentage when its size is known, bytes read, events/s and the ETA. Redrawn at most
 * ten times a second; `finish` draws the last frame and ends the line, so it stays on screen.
 */

export interface ProgressState {
  name: string;
  bytesRead: number;
  /** undefined: stdin (no bar, no ETA). */
  bytesTotal: number | undefined;
  /** Events the server acknowledged so far, over all inputs. */
  events: number;
  /** What the run waits for, when it waits (a retry). */
  waiting?: string;
}

const REDRAW_MS = 100;
const BAR = 20;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  for (; v >= 1024 && i < units.length - 1; i++) v /= 1024;
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatDuration(secs: number): string {
  if (!Number.isFinite(secs)) return '--:--';
  const s = Math.max(0, Math.round(secs));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h > 0 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** One frame of the progress line (no colour, no control characters), at most `cols` wide: the bar gives way first, then the name. */
export function progressLine(
  p: ProgressState,
  t: { elapsedSecs: number; inputStartBytes: number; inputElapsedSecs: number },
  cols = 80,
): string {
  const rate = t.elapsedSecs > 0 ? Math.round(p.events / t.elapsedSecs) : 0;
  const known = p.bytesTotal !== undefined && p.bytesTotal > 0;
  const frac = known ? Math.min(1, p.bytesRead / p.bytesTotal!) : 0;
  const parts: string[] = [];
  if (known)
    parts.push(
      `${String(Math.floor(frac * 100)).padStart(3)}%`,
      `${formatBytes(p.bytesRead)}/${formatBytes(p.bytesTotal!)}`,
    );
  else parts.push(formatBytes(p.bytesRead));
  parts.push(`${rate.toLocaleString('en-US')} events/s`);
  if (known) {
    const byteRate = (p.bytesRead - t.inputStartBytes) / Math.max(t.inputElapsedSecs, 1e-3);
    parts.push(`ETA ${byteRate > 0 ? formatDuration((p.bytesTotal! - p.bytesRead) / byteRate) : '--:--'}`);
  }
  if (p.waiting) parts.push(p.waiting);
  const body = parts.join('  ');
  const room = cols - body.length - p.name.length - 4;
  const barWidth = known ? Math.max(0, Math.min(BAR, room - 3)) : 0;
  const fill = Math.round(frac * barWidth);
  const bar = barWidth >= 5 ? `[${'#'.repeat(fill)}${'-'.repeat(barWidth - fill)}] ` : '';
  return truncate(`${bar}${body}  ${p.name}`, cols);
}

export class Progress {
  private readonly started = Date.now();
  private inputStarted = Date.now();
  private inputStartBytes = 0;
  private lastDraw = 0;
  private last: ProgressState | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly color: boolean,
  ) {}

  /** A new input begins (its ETA is computed from its own pace). */
  startInput(resumeBytes = 0): void {
    this.inputStarted = Date.now();
    this.inputStartBytes = resumeBytes;
  }

  update(p: ProgressState, force = false): void {
    this.last = p;
    const now = Date.now();
    if (!this.enabled || (!force && now - this.lastDraw < REDRAW_MS)) return;
    this.lastDraw = now;
    const times = {
      elapsedSecs: (now - this.started) / 1000,
      inputStartBytes: this.inputStartBytes,
      inputElapsedSecs: (now - this.inputStarted) / 1000,
    };
    // one column spare: a line as wide as the terminal wraps on some terminals
    const line = progressLine(p, times, (process.stderr.columns || 80) - 1);
    process.stderr.write(`\r\x1b[K${paint(this.color, 'cyan', line)}`);
  }

  /** Draws the last state and ends the line. */
  finish(): void {
    if (!this.enabled || !this.last) return;
    this.update({ ...this.last, waiting: undefined }, true);
    process.stderr.write('\n');
    this.last = undefined;
  }
}
