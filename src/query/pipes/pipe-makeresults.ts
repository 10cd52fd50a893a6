import { doc } from '../doc.js';
import { describe, type Token } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import type { Schema } from '../schema.js';
import { ident, timeLiteral } from '../sql.js';
import type { PipeDef } from './pipe.js';

/**
 * `| makeresults [count=N] [annotate=<bool>]` (Splunk's makeresults): N rows (default 1) whose
 * `_time` is the time the search runs (whole seconds, as Splunk's), to build rows with eval
 * (`| makeresults | eval x=1`) or add one with `append [| makeresults | eval …]`. The events are
 * not read. annotate=true adds Splunk's other columns: host, source, sourcetype and
 * splunk_server_group without a value, splunk_server "svc". At most MAX_ROWS rows: a table
 * result returns at most 10,000 rows anyway (run-search.ts).
 */
export interface MakeresultsPipe {
  kind: 'makeresults';
  count: number;
  annotate: boolean;
}

export const MAKERESULTS_MAX_ROWS = 10_000;
const ANNOTATED = ['host', 'source', 'sourcetype', 'splunk_server', 'splunk_server_group'];
const REFUSED: Record<string, string> = {
  splunk_server: 'svc runs on one server',
  splunk_server_group: 'svc runs on one server',
  format: 'give the rows with eval instead',
  data: 'give the rows with eval instead',
};

function parseMakeresults(p: Parser, cmd: Token): MakeresultsPipe {
  if (!p.leading(cmd))
    throw p.fail('makeresults starts a search ("| makeresults" with nothing before it, or in [| makeresults …])', cmd);
  const n: MakeresultsPipe = { kind: 'makeresults', count: 1, annotate: false };
  const given = new Set<string>();
  while (!p.atPipeEnd()) {
    const t = p.next('search');
    const name = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (Object.hasOwn(REFUSED, name)) throw p.fail(`makeresults ${name}= is not supported: ${REFUSED[name]}`, t);
    if (name !== 'count' && name !== 'annotate') throw p.unexpected(t, 'makeresults takes count= and annotate=');
    if (given.has(name)) throw p.fail(`${describe(t)} is given twice`, t);
    given.add(name);
    if (!p.acceptOp('=', 'search')) throw p.unexpected(p.peek('search'), `missing "=" after "${t.text}"`);
    const v = p.next('search');
    const value = v.kind === 'word' ? v.text.toLowerCase() : '';
    if (name === 'annotate') {
      if (!['true', 't', 'false', 'f'].includes(value))
        throw p.fail(`unexpected ${describe(v)}: missing true or false after "annotate="`, v);
      n.annotate = value.startsWith('t');
    } else {
      if (!/^\d+$/.test(value) || Number(value) < 1)
        throw p.fail(`unexpected ${describe(v)}: missing a whole number from 1 after "count="`, v);
      if (Number(value) > MAKERESULTS_MAX_ROWS)
        throw p.fail(`makeresults makes at most ${MAKERESULTS_MAX_ROWS} rows, not ${value}`, v);
      n.count = Number(value);
    }
  }
  return n;
}

export const makeresultsPipe: PipeDef<MakeresultsPipe> = {
  name: 'makeresults',
  doc: doc(
    'makeresults [count=<N>] [annotate=<bool>] (after a leading "|")',
    'Starts a search with N rows (default 1, at most 10,000) whose _time is now, to build rows with eval.',
    '| makeresults count=3 | eval n=1',
  ),
  parse: parseMakeresults,
  print: (n) =>
    ['makeresults', n.count !== 1 ? `count=${n.count}` : '', n.annotate ? 'annotate=true' : '']
      .filter(Boolean)
      .join(' '),
  reads: () => [],
  writes: () => 'all',
  compile(n, b) {
    const schema: Schema = new Map([['_time', 'time']]);
    const cols = [`${timeLiteral(Math.floor(b.nowMs / 1000) * 1000)} AS ${ident('_time')}`];
    if (n.annotate)
      for (const name of ANNOTATED) {
        cols.push(`${name === 'splunk_server' ? `'svc'` : 'CAST(NULL AS VARCHAR)'} AS ${ident(name)}`);
        schema.set(name, 'str');
      }
    b.push(`SELECT ${cols.join(', ')}, range AS __ord FROM range(${n.count})`, schema);
    b.order = [{ sql: '__ord', desc: false, cols: ['__ord'] }];
    b.mode = 'table';
  },
  generating: () => true,
};
