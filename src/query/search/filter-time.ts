import { quoteString } from '../lexer.js';
import { parseTime } from '../time-range.js';
import { timeLiteral } from '../sql.js';

/** `earliest=<time>` / `latest=<time>`: bounds on the event time (latest is exclusive). */
export interface TimeFilter {
  kind: 'time';
  bound: 'earliest' | 'latest';
  value: string;
  quoted: boolean;
}

export const printTime = (f: TimeFilter): string => `${f.bound}=${f.quoted ? quoteString(f.value) : f.value}`;

export function timeFilterMs(f: TimeFilter, nowMs: number): number {
  return parseTime(f.value, nowMs);
}

export function compileTime(f: TimeFilter, nowMs: number): string {
  const lit = timeLiteral(timeFilterMs(f, nowMs));
  return f.bound === 'earliest' ? `(_time >= ${lit})` : `(_time < ${lit})`;
}
