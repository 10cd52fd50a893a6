import { doc } from '../doc.js';
import { describe } from '../lexer.js';
import type { Parser } from '../parser-api.js';
import { asNumber, numericValue } from '../sql.js';
import { pipeError, type StageBuilder } from '../stages.js';
import { parseSpan } from '../time-range.js';
import { printListName } from './field-names.js';
import type { PipeDef } from './pipe.js';
import { spanOf } from './pipe-timechart.js';

/**
 * `bin [span=<span>] <field> [as <name>]` (also spelled `bucket`; `span=` may also come after the
 * field, as Splunk allows): puts each value in its bucket.
 * `_time` (or any time) becomes the start of its bucket (`span=1h`; without span, the span
 * timechart would pick for the time range), so `bin span=1h _time | stats count by _time, host`
 * counts per hour and host. A number becomes the text of its range, as in Splunk: with `span=100`,
 * 250 becomes `"200-300"`. Values that are not numbers become null.
 */
export interface BinPipe {
  kind: 'bin';
  span?: string;
  field: string;
  as?: string;
}

function parseBin(p: Parser, cmd: { text: string }): BinPipe {
  let span: string | undefined;
  // Splunk takes the options before or after the field: `bin span=1h _time`, `bin _time span=1h`
  const readSpan = (): void => {
    const at = p.peek('expr');
    const name = at.kind === 'ident' ? at.raw.toLowerCase() : '';
    if (name === 'bins' || name === 'minspan' || name === 'start' || name === 'end' || name === 'aligntime')
      throw p.fail(`${cmd.text.toLowerCase()} ${name}= is not supported: give span=`, at);
    if (!p.acceptKeyword('span')) return;
    if (span !== undefined) throw p.fail(`${describe(at)} is given twice`, at);
    p.expectOp('=', 'expr');
    const t = p.next('search');
    if (t.kind !== 'word' || !(parseSpan(t.text) !== undefined || (numericValue(t.text) ?? 0) > 0)) {
      throw p.fail(`unexpected ${describe(t)}: missing a span such as 1h, 5m or 100`, t);
    }
    span = t.text;
  };
  readSpan();
  const stop = ['as', 'span', 'bins', 'minspan', 'start', 'end', 'aligntime'];
  const [field, ...more] = p.listItems(`a field to ${cmd.text.toLowerCase()}`, { stop }).map((i) => i.name);
  if (more.length > 0) throw p.fail(`unexpected ${JSON.stringify(more[0])}: bin takes one field`, p.peek('search'));
  readSpan();
  let as: string | undefined;
  if (p.acceptKeyword('as')) {
    const names = p.listItems('a name after "as"', { stop }).map((i) => i.name);
    if (names.length !== 1) throw p.fail('bin … as takes one name', p.peek('search'));
    as = names[0];
  }
  readSpan();
  return { kind: 'bin', span, field, as };
}

function compileBin(n: BinPipe, b: StageBuilder): void {
  const col = b.col(n.field);
  const out = n.as ?? n.field;
  if (col.type === 'time') {
    if (n.span !== undefined && parseSpan(n.span) === undefined)
      throw pipeError('bin', `${n.field} is a time: its span takes a unit (30s, 5m, 1h, 1d), not ${n.span}`);
    const spanUs = spanOf(n.span, b.range) * 1_000_000;
    b.setColumns([{ name: out, sql: `make_timestamp((epoch_us(${col.sql}) // ${spanUs}) * ${spanUs})`, type: 'time' }]);
    return;
  }
  const span = n.span === undefined ? undefined : numericValue(n.span);
  if (span === undefined) throw pipeError('bin', `${n.field} is not a time: give a numeric span such as span=100`);
  const lo = `(floor(${asNumber(col.sql)} / ${span}) * ${span})`;
  // the range as Splunk prints it: "200-300"; whole numbers without a decimal point
  const text = (x: string) => `regexp_replace(CAST(${x} AS VARCHAR), '\\.0$', '')`;
  b.setColumns([
    {
      name: out,
      sql: `CASE WHEN ${lo} IS NULL THEN NULL ELSE ${text(lo)} || '-' || ${text(`(${lo} + ${span})`)} END`,
      type: 'str',
    },
  ]);
}

const printBin = (n: BinPipe): string =>
  `bin ${n.span ? `span=${n.span} ` : ''}${printListName(n.field)}${n.as ? ` as ${printListName(n.as)}` : ''}`;

export const binPipe: PipeDef<BinPipe> = {
  name: 'bin',
  doc: doc(
    'bin [span=<span>] <field> [as <name>]',
    'Puts each value in its bucket: a time becomes the start of its span, a number the text of its range (250 with span=100 is 200-300).',
    '* | bin span=1h _time | stats count by _time, host',
  ),
  parse: parseBin,
  print: printBin,
  reads: (n) => [n.field],
  writes: (n) => [n.as ?? n.field],
  compile: compileBin,
};

export const bucketPipe: PipeDef<BinPipe> = {
  ...binPipe,
  name: 'bucket',
  doc: doc(
    'bucket [span=<span>] <field> [as <name>]',
    'Another name for bin: puts each time or number in its bucket.',
    '* | bucket span=5m _time | stats count by _time',
  ),
};
