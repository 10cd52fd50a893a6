import { doc } from '../doc.js';
import type { PipeDef } from './pipe.js';

/** `tail [N]`: the last N rows (default 10) of the current order (events: the oldest), same order. */
export interface TailPipe {
  kind: 'tail';
  n: number;
}

export const tailPipe: PipeDef<TailPipe> = {
  name: 'tail',
  doc: doc(
    'tail [N]',
    'Keeps the last N rows (default 10) of the current order, for events the oldest, in that order.',
    'error | tail 5',
  ),
  parse: (p) => ({ kind: 'tail', n: p.atPipeEnd() ? 10 : p.positiveInt('a row count') }),
  print: (n) => `tail ${n.n}`,
  reads: () => [],
  writes: () => [],
  compile(n, b) {
    b.markMatched();
    const reversed = b.order.map((k) => ({ ...k, desc: !k.desc }));
    b.push(`SELECT * FROM ${b.cur}${b.orderBy(reversed)} LIMIT ${n.n}`);
  },
};
