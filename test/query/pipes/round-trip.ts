import { it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from '../../../src/query/parser.js';
import { print } from '../../../src/query/printer.js';
import { isSvcError } from '../../../src/errors/svc-error.js';

/**
 * The language's round-trip tables (STYLE 3): canonical queries print back to themselves, accepted
 * spellings print as their canonical form, rejected queries fail with their message and position.
 * The parser's own test holds the search part; each pipe's file under test/query/pipes/ its own.
 */
export interface RoundTripTables {
  canonical?: string[];
  canonicalized?: [string, string][];
  rejected?: [string, string, number][];
}

export function roundTrip({ canonical = [], canonicalized = [], rejected = [] }: RoundTripTables): void {
  for (const q of canonical) {
    it(`prints ${JSON.stringify(q)} back to itself`, () => {
      assert.equal(print(parse(q)), q);
    });
  }

  for (const [q, c] of canonicalized) {
    it(`reads ${JSON.stringify(q)} as ${JSON.stringify(c)}`, () => {
      assert.equal(print(parse(q)), c);
      assert.equal(print(parse(c)), c);
    });
  }

  for (const [q, message, position] of rejected) {
    it(`rejects ${JSON.stringify(q)} with "${message}" at ${position}`, () => {
      try {
        parse(q);
      } catch (e) {
        assert.ok(isSvcError(e), `not an SvcError: ${String(e)}`);
        assert.equal(e.code, 'invalid_query');
        assert.equal(e.message, message);
        assert.equal(e.details?.position, position);
        assert.equal(typeof e.details?.token, 'string');
        return;
      }
      assert.fail(`${JSON.stringify(q)} was accepted`);
    });
  }
}
