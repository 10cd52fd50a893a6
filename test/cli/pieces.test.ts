import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { batches, detectFormat, type InputSource } from '../../src/cli/ingest-read.js';
import { TailWindow } from '../../src/cli/tail-window.js';
import { caretLines, renderTable } from '../../src/cli/format.js';
import { progressLine } from '../../src/cli/progress.js';
import { parseRetryAfter } from '../../src/cli/http-client.js';
import { printable } from '../../src/cli/terminal.js';
import type { EventJson } from '../../src/query/types.js';

/** The command line's pure pieces: batching and line numbers, tail de-duplication, formatting. */

function source(text: string, chunk = 3): InputSource {
  const buf = Buffer.from(text);
  const parts = Array.from({ length: Math.ceil(buf.length / chunk) }, (_, i) =>
    buf.subarray(i * chunk, (i + 1) * chunk),
  );
  return { name: 't', size: buf.length, bytesRead: () => buf.length, gzip: false, chunks: Readable.from(parts) };
}

async function all(text: string, limits: { lines: number; bytes: number }, from = 1) {
  const out = [];
  for await (const b of batches(source(text), limits, from))
    out.push({ body: b.body.toString(), firstLine: b.firstLine, lines: b.lines, end: b.inputBytes });
  return out;
}

const ev = (time: string, message: string): EventJson => ({
  time,
  env: 'default',
  index: 'main',
  host: '',
  source: '',
  sourcetype: '',
  message,
  fields: {},
});

describe("the command line's pieces", () => {
  it('cuts input into batches of whole lines, numbered over the whole input, blank lines included', async () => {
    assert.deepEqual(await all('a\n\nbb\nc', { lines: 2, bytes: 1000 }), [
      { body: 'a\n\n', firstLine: 1, lines: 2, end: 3 },
      { body: 'bb\nc', firstLine: 3, lines: 2, end: 7 },
    ]);
    assert.deepEqual(await all('aaaa\nbbbb\ncc\n', { lines: 100, bytes: 8 }), [
      { body: 'aaaa\n', firstLine: 1, lines: 1, end: 5 },
      { body: 'bbbb\ncc\n', firstLine: 2, lines: 2, end: 13 },
    ]);
    assert.deepEqual(await all('1\n2\n3\n4\n', { lines: 10, bytes: 1000 }, 3), [
      { body: '3\n4\n', firstLine: 3, lines: 2, end: 8 },
    ]);
    assert.deepEqual(await all('', { lines: 10, bytes: 1000 }), []);
  });

  it('sends what a live pipe gave so far once it pauses', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const chunks = (async function* () {
      yield Buffer.from('first\nsecond\npart');
      await gate;
      yield Buffer.from('ial\n');
    })();
    const got: string[] = [];
    for await (const b of batches(
      { name: '-', size: undefined, bytesRead: () => 0, gzip: false, chunks },
      { lines: 100, bytes: 1000, idleMs: 50 },
    )) {
      got.push(b.body.toString());
      release();
    }
    assert.deepEqual(got, ['first\nsecond\n', 'partial\n']);
  });

  it('detects NDJSON by its first non-blank line', () => {
    assert.equal(detectFormat(Buffer.from('\n  {"a":1}\nnot json')), 'ndjson');
    assert.equal(detectFormat(Buffer.from('\uFEFF{"a":1}')), 'ndjson');
    assert.equal(detectFormat(Buffer.from('Dec 10 06:55:46 sshd: {x}')), 'text');
  });

  it('tails each event once, identical events of one instant counted, oldest first', () => {
    const w = new TailWindow('-1m');
    assert.equal(w.from(), '-1m');
    const a = ev('2026-01-01T00:00:01.000000Z', 'a');
    const b = ev('2026-01-01T00:00:02.000000Z', 'b');
    assert.deepEqual(
      w.take([b, a]).map((e) => e.message),
      ['a', 'b'],
    );
    assert.equal(w.from(), '2026-01-01T00:00:00.000Z');
    assert.deepEqual(
      w.take([b, b, a]).map((e) => e.message),
      ['b'],
      'a second identical b is new',
    );
    assert.deepEqual(w.take([b, b, a]), []);
  });

  it('puts a caret under the position, on the line that holds it', () => {
    assert.deepEqual(caretLines('a | b(', 6), ['  a | b(', '        ^']);
    assert.deepEqual(caretLines('x\n\t| bad', 4), ['  \t| bad', '  \t ^']);
  });

  it('aligns tables, cutting the widest column to the width and numbers to the right', () => {
    const term = { tty: true, width: 20, color: false };
    assert.equal(
      renderTable(
        {
          headers: ['name', 'n'],
          rows: [
            ['a-very-long-name-indeed', '1'],
            ['b', '22'],
          ],
          right: [false, true],
        },
        term,
      ),
      `name${' '.repeat(15)}n\na-very-long-nam…   1\nb${' '.repeat(17)}22\n`,
    );
  });

  it('draws the progress line within the width, the bar giving way first', () => {
    const t = { elapsedSecs: 2, inputStartBytes: 0, inputElapsedSecs: 2 };
    const p = { name: 'app.log', bytesRead: 512 * 1024, bytesTotal: 1024 * 1024, events: 2000 };
    assert.equal(
      progressLine(p, t, 100),
      '[##########----------]  50%  512 KiB/1.0 MiB  1,000 events/s  ETA 0:02  app.log',
    );
    assert.equal(progressLine(p, t, 60), ' 50%  512 KiB/1.0 MiB  1,000 events/s  ETA 0:02  app.log');
    assert.equal(progressLine({ ...p, bytesTotal: undefined, name: 'stdin' }, t, 80), '512 KiB  1,000 events/s  stdin');
  });

  it('reads Retry-After as seconds or a date, and makes log text safe for a terminal', () => {
    assert.equal(parseRetryAfter('3'), 3);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(printable('a\x1b[31mred\nnext\ttab'), 'a\\x1b[31mred\\nnext tab');
  });
});
