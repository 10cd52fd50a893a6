import { doc } from '../doc.js';
import { describe, quoteString } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { PipeOptions } from './pipe-options.js';
import type { PipeDef } from './pipe.js';

/**
 * `collect index=<name> [sourcetype=<text>] [source=<text>] [host=<text>] [testmode=<bool>]`
 * (Splunk's collect): writes the search's rows as events into an index of the environment it
 * searches, through the same write path as ingest (acknowledged once durable), and answers the rows
 * unchanged. The last pipe of a search; run-collect.ts checks who may write and runs the write.
 * `testmode=true` writes nothing. Splunk's options about files, spooling and summary markers
 * (`addtime`, `file`, `spool`, `marker`, `output_format`, `split`, …) are refused.
 */
export interface CollectPipe {
  kind: 'collect';
  index: string;
  sourcetype?: string;
  source?: string;
  host?: string;
  testmode?: boolean;
}

const TEXT = ['index', 'sourcetype', 'source', 'host'] as const;
const UNSUPPORTED = [
  'addtime',
  'addinfo',
  'file',
  'spool',
  'marker',
  'output_format',
  'run_in_preview',
  'split',
  'prefix_field',
  'uselb',
  'sendtosplunk',
];

function text(p: Parser, name: string): string {
  const t = p.next('search');
  if ((t.kind !== 'word' && t.kind !== 'string') || t.text === '')
    throw p.fail(`unexpected ${describe(t)}: missing a value after "${name}="`, t);
  return t.text;
}

function parseCollect(p: Parser): CollectPipe {
  const opts = new PipeOptions(p, [...TEXT, 'testmode', ...UNSUPPORTED]);
  const n: Partial<CollectPipe> = { kind: 'collect' };
  for (let at = p.peek('expr'), name = opts.next(); name !== undefined; at = p.peek('expr'), name = opts.next()) {
    if (UNSUPPORTED.includes(name)) throw p.fail(`collect ${name}= is not supported`, at);
    if (name === 'testmode') n.testmode = opts.bool(name);
    else n[name as (typeof TEXT)[number]] = text(p, name);
  }
  if (n.index === undefined) throw p.unexpected(p.peek('search'), 'missing index=<name>: the index collect writes to');
  return n as CollectPipe;
}

const value = (s: string) => (/^[A-Za-z0-9_.:/-]+$/.test(s) ? s : quoteString(s));

function printCollect(n: CollectPipe): string {
  const opts = [
    `index=${value(n.index)}`,
    ...(['sourcetype', 'source', 'host'] as const).map((k) => (n[k] !== undefined ? `${k}=${value(n[k])}` : '')),
    n.testmode !== undefined ? `testmode=${n.testmode}` : '',
  ].filter(Boolean);
  return `collect ${opts.join(' ')}`;
}

export const collectPipe: PipeDef<CollectPipe> = {
  name: 'collect',
  doc: doc(
    'collect index=<name> [sourcetype=<text>] [source=<text>] [host=<text>] [testmode=<bool>]',
    'Writes the rows of the search as events into an index of the environment it searches (last pipe; needs the admin scope and writes=allow).',
    'index=web status>=500 | stats count by host | collect index=summary',
  ),
  parse: parseCollect,
  print: printCollect,
  reads: () => '*',
  writes: () => [],
  // the rows pass through; the search's runner writes them once they are known
  compile: () => undefined,
};
