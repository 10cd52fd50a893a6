/**
 * What the command line knows about where it prints: whether a stream is a terminal, its width,
 * colour (only on a terminal, never with NO_COLOR), and making log text safe to show there.
 */

export interface Terminal {
  /** stdout is a terminal: tables are fitted to `width` and coloured (unless NO_COLOR). */
  tty: boolean;
  /** Columns of the terminal; Infinity when stdout is not one (nothing is truncated in a pipe). */
  width: number;
  color: boolean;
}

export function stdoutTerminal(noColor: boolean): Terminal {
  const tty = process.stdout.isTTY === true;
  return { tty, width: tty ? process.stdout.columns || 80 : Infinity, color: tty && !noColor };
}

export function stderrColor(noColor: boolean): boolean {
  return process.stderr.isTTY === true && !noColor;
}

const SGR = { bold: '1', dim: '2', red: '31', green: '32', yellow: '33', cyan: '36', underline: '4' } as const;
export type Style = keyof typeof SGR;

/** `text` in ANSI style when `on`; as is otherwise. */
export function paint(on: boolean, style: Style, text: string): string {
  return on && text.length > 0 ? `\x1b[${SGR[style]}m${text}\x1b[0m` : text;
}

/**
 * Log text made safe for a terminal: control characters (an ESC in a log line could move the
 * cursor or retitle the window) shown as escapes, tabs as one space, newlines as `\n` so that one
 * event stays on one line.
 */
export function printable(s: string): string {
  // fast path: most log lines have no control character
  if (!/[\x00-\x1f\x7f-\x9f]/.test(s)) return s;
  return s.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return ' ';
    if (c === '\r') return '\\r';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** Display width, counting code points (wide CJK characters are counted as one: good enough here). */
export function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s` cut to at most `max` columns, ending in `…` when cut. */
export function truncate(s: string, max: number): string {
  if (max === Infinity || width(s) <= max) return s;
  if (max <= 1) return max === 1 ? '…' : '';
  return [...s].slice(0, max - 1).join('') + '…';
}

export function padEnd(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}

export function padStart(s: string, w: number): string {
  return ' '.repeat(Math.max(0, w - width(s))) + s;
}
