import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BulkSyntaxError, parseBulk } from '../../../src/ingest/elasticsearch/bulk.js';

describe('parseBulk', () => {
  it('pairs action and source lines and takes the index from the action or the path', () => {
    const ops = parseBulk(Buffer.from('{"index":{"_index":"a","_id":"1"}}\n{"m":1}\n{"create":{}}\r\n{"m":2}\n'), 'p');
    assert.deepEqual(ops, [
      { op: 'index', index: 'a', id: '1', doc: { m: 1 }, raw: '{"m":1}', docError: undefined },
      { op: 'create', index: 'p', id: undefined, doc: { m: 2 }, raw: '{"m":2}', docError: undefined },
    ]);
  });

  it('ignores _type and blank lines', () => {
    const ops = parseBulk(Buffer.from('\n{"index":{"_index":"a","_type":"_doc"}}\n\n{"m":1}\n'));
    assert.equal(ops.length, 1);
    assert.equal(ops[0].index, 'a');
  });

  it('keeps delete without a source and update with one', () => {
    const ops = parseBulk(
      Buffer.from('{"delete":{"_id":"1"}}\n{"update":{"_id":"2"}}\n{"doc":{}}\n{"index":{}}\n{"x":1}\n'),
    );
    assert.deepEqual(
      ops.map((o) => o.op),
      ['delete', 'update', 'index'],
    );
    assert.deepEqual(ops[2].doc, { x: 1 });
  });

  it('fails one item for a malformed source line', () => {
    const ops = parseBulk(Buffer.from('{"index":{}}\n{not json\n{"index":{}}\n{"ok":true}\n'));
    assert.equal(ops[0].doc, undefined);
    assert.match(ops[0].docError ?? '', /cannot parse source/);
    assert.deepEqual(ops[1].doc, { ok: true });
  });

  it('reads lines as the other line protocols do: a byte-order mark first is not content', () => {
    const ops = parseBulk(Buffer.from('\ufeff{"index":{"_index":"a"}}\r\n \r\n{"m":1}'));
    assert.deepEqual(ops, [
      { op: 'index', index: 'a', id: undefined, doc: { m: 1 }, raw: '{"m":1}', docError: undefined },
    ]);
  });

  it('rejects the whole body for a malformed action line', () => {
    assert.throws(() => parseBulk(Buffer.from('{"index":\n{"a":1}\n')), BulkSyntaxError);
    assert.throws(() => parseBulk(Buffer.from('{"frobnicate":{}}\n{"a":1}\n')), /unknown action \[frobnicate\]/);
  });
});
