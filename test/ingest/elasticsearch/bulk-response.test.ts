import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BulkItem } from '../../../src/ingest/elasticsearch/bulk-item.js';
import { parseFilterPath, renderBulkResponse } from '../../../src/ingest/elasticsearch/respond.js';

const items: BulkItem[] = [
  { op: 'index', index: 'web', id: 'a1' },
  {
    op: 'create',
    index: 'web',
    id: undefined,
    error: { kind: 'bad_request', type: 'document_parsing_exception', reason: 'bad "json"' },
  },
];

describe('renderBulkResponse', () => {
  it('renders whole items as valid JSON, in order', () => {
    const out = JSON.parse(renderBulkResponse(items, 3, undefined));
    assert.equal(out.took, 3);
    assert.equal(out.errors, true);
    assert.deepEqual(out.items[0].index, {
      _index: 'web',
      _id: 'a1',
      _version: 1,
      result: 'created',
      _shards: { total: 1, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
      status: 201,
    });
    assert.deepEqual(out.items[1].create, {
      _index: 'web',
      _id: null,
      status: 400,
      error: { type: 'document_parsing_exception', reason: 'bad "json"' },
    });
  });

  it("keeps only what Filebeat's filter_path asks for", () => {
    const out = JSON.parse(renderBulkResponse(items, 3, parseFilterPath('errors,items.*.error,items.*.status')));
    assert.deepEqual(out, {
      errors: true,
      items: [
        { index: { status: 201 } },
        { create: { status: 400, error: { type: 'document_parsing_exception', reason: 'bad "json"' } } },
      ],
    });
  });
});
