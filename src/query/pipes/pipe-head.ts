import { doc } from '../doc.js';
import type { PipeDef } from './pipe.js';

/** `head [N]`: the first N rows (default 10) in the current order (events: newest first). */
export interface HeadPipe {
  kind: 'head';
  n: number;
}

export const headPipe: PipeDef<HeadPipe> = {
  name: 'head',
  doc: doc(
    'head [N]',
    'Keeps the first N rows (default 10) of the current order; for events, the newest.',
    'error | head 20',
  ),
  parse: (p) => ({ kind: 'head', n: p.atPipeEnd() ? 10 : p.positiveInt('a row count') }),
  print: (n) => `head ${n.n}`,
  reads: () => [],
  writes: () => [],
  compile(n, b) {
    b.markMatched();
    b.push(`SELECT * FROM ${b.cur}${b.orderBy()} LIMIT ${n.n}`);
  },
};
