import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bomLength, firstContent, forEachLine } from '../../../src/ingest/common/lines.js';

/** The one line reader of the line protocols (native text and NDJSON, HEC raw). */

const BOM = '\ufeff';

function lines(body: string): [string, number][] {
  const buf = Buffer.from(body);
  const out: [string, number][] = [];
  forEachLine(buf, (start, end, lineNo) => out.push([buf.toString('utf8', start, end), lineNo]));
  return out;
}

describe('the line reader', () => {
  it('splits on LF and CRLF, the last line needing no LF', () => {
    assert.deepEqual(lines('a\nb\r\nc'), [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('skips blank lines but counts them, so line numbers are those the client sent', () => {
    assert.deepEqual(lines('\n  \t\r\na\n\r\n\n b \n'), [
      ['a', 3],
      [' b ', 6],
    ]);
  });

  it('keeps a CR inside a line and drops only the one before LF', () => {
    assert.deepEqual(lines('x\ry\r\r\n'), [['x\ry\r', 1]]);
  });

  it('ignores a byte-order mark at the start only', () => {
    assert.deepEqual(lines(`${BOM}a\n${BOM}b`), [
      ['a', 1],
      [`${BOM}b`, 2],
    ]);
    assert.deepEqual(lines(BOM), []);
    assert.equal(bomLength(Buffer.from(`${BOM}x`)), 3);
    assert.equal(bomLength(Buffer.from('\xef\xbb')), 0);
  });

  it('keeps multi-byte characters whole', () => {
    assert.deepEqual(lines('日本\r\n🙂\n'), [
      ['日本', 1],
      ['🙂', 2],
    ]);
  });

  it('finds the first byte of content after the BOM and any white space', () => {
    assert.equal(firstContent(Buffer.from(`${BOM} \r\n\t{`)), 7);
    assert.equal(firstContent(Buffer.from('{')), 0);
    assert.equal(firstContent(Buffer.from(`${BOM} \n`)), 5);
    assert.equal(firstContent(Buffer.alloc(0)), 0);
  });
});
