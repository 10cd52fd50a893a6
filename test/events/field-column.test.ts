import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fieldColumn, fieldOfColumn } from '../../src/events/field-column.js';

/** Lower case as DuckDB compares identifiers: ASCII letters only. */
const duckFold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const nameArb = fc.oneof(
  fc.constantFrom(
    'foo',
    'Foo',
    'FOO',
    'fOo',
    'a.b',
    'A.B',
    'é',
    'É',
    'x\u0001',
    'X\u0001',
    'x\u00010',
    'foo\u00010',
    '',
  ),
  fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', '.', '\u0001', '0', ',', 'é'), maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

describe('fieldColumn', () => {
  it('keeps a name without an ASCII capital as it is and marks the others with their capitals', () => {
    assert.deepEqual(['foo', 'é', 'É', 'a.b', '_time'].map(fieldColumn), ['foo', 'é', 'É', 'a.b', '_time']);
    assert.deepEqual(['Foo', 'FOO', 'A.b'].map(fieldColumn), ['Foo\u00010', 'FOO\u00010,1,2', 'A.b\u00010']);
  });

  it('gives two names columns that DuckDB tells apart, and gives each name back', () => {
    fc.assert(
      fc.property(nameArb, nameArb, (a, b) => {
        assert.equal(fieldOfColumn(fieldColumn(a)), a);
        if (a !== b) assert.notEqual(duckFold(fieldColumn(a)), duckFold(fieldColumn(b)));
      }),
      { seed: 24_002, numRuns: 20_000 },
    );
  });
});
