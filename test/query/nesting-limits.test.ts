import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import { MAX_OPERATORS } from '../../src/query/expr/expr.js';
import { MAX_NESTING, MAX_TERMS, parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import { QueryService } from '../../src/query/service.js';
import { makeEvents, openStorage, type TestStorage } from '../storage/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken } from '../helpers/auth.js';

/**
 * Limits on how deep a query nests and how many operators one expression chains: the parser,
 * printer and compiler recurse once per level, and 10,000 levels overflowed the stack (a 500).
 * Past a limit the answer is invalid_query at the token that crossed it; at the limit the query
 * parses, prints back and runs.
 */
const NEST = `cannot nest deeper than ${MAX_NESTING} levels (parentheses, NOT, functions and subsearches count): simplify the query`;
const CHAIN = `cannot chain more than ${MAX_OPERATORS} operators in one expression: simplify it`;
const TERMS = `cannot search for more than ${MAX_TERMS} terms and field filters at once: narrow the query`;
const anded = (n: number, term = (i: number) => `t${i}`) => Array.from({ length: n }, (_, i) => term(i)).join(' AND ');
const times = (s: string, n: number) => s.repeat(n);
const nth = (q: string, needle: string, n: number) => {
  let at = -1;
  for (let i = 0; i < n; i++) at = q.indexOf(needle, at + 1);
  return at;
};
const plus = (n: number) => Array.from({ length: n + 1 }, () => '1').join(' + ');
const conds = (n: number) => Array.from({ length: n }, (_, i) => `a${i} = 1`).join(' AND ');
const subs = (n: number) => `* | append ${times('[search * | append ', n - 1)}[search x]${times(']', n - 1)}`;

/** [name, query, message, position of the token that crossed the limit] */
const REJECTED: [string, string, string, (q: string) => number][] = [
  ['10,000 nested parentheses', `${times('(', 10_000)}a${times(')', 10_000)}`, NEST, () => MAX_NESTING],
  ['10,000 NOTs', `${times('NOT ', 10_000)}a`, NEST, () => 4 * MAX_NESTING],
  [
    'parentheses one past the limit',
    `${times('(', MAX_NESTING + 1)}a${times(')', MAX_NESTING + 1)}`,
    NEST,
    () => MAX_NESTING,
  ],
  [
    '10,000 parentheses in eval',
    `* | eval x=${times('(', 10_000)}1${times(')', 10_000)}`,
    NEST,
    () => 11 + MAX_NESTING,
  ],
  ['10,000 minus signs in eval', `* | eval x=${times('-', 10_000)}1`, NEST, () => 11 + MAX_NESTING],
  ['10,000 NOTs in where', `* | where ${times('NOT ', 10_000)}true`, NEST, () => 10 + 4 * MAX_NESTING],
  [
    '10,000 nested function calls',
    `* | eval x=${times('abs(', 10_000)}1${times(')', 10_000)}`,
    NEST,
    () => 11 + 4 * MAX_NESTING,
  ],
  ['5,000 additions in eval', `* | eval x=${plus(5000)}`, CHAIN, (q) => nth(q, '+', MAX_OPERATORS + 1)],
  ['5,000 ANDs in where', `* | where ${conds(5000)}`, CHAIN, (q) => nth(q, '=', MAX_OPERATORS / 2 + 1)],
  [
    'additions past the limit split by parentheses',
    `* | eval x=(${plus(MAX_OPERATORS / 2)}) + (${plus(MAX_OPERATORS / 2)})`,
    CHAIN,
    (q) => q.lastIndexOf('+'),
  ],
  ['subsearches one past the limit', subs(MAX_NESTING + 1), NEST, (q) => nth(q, '[', MAX_NESTING + 1)],
  ['5,000 ANDed terms', anded(5001), TERMS, (q) => q.indexOf(`t${MAX_TERMS} `)],
  [
    '5,000 ANDed field filters',
    anded(5001, (i) => `f${i % 7}=v${i}`),
    TERMS,
    (q) => q.indexOf(`f${MAX_TERMS % 7}=v${MAX_TERMS} `),
  ],
  ['one term past the limit, negated', `${anded(MAX_TERMS)} -last`, TERMS, (q) => q.indexOf('-last')],
];

/** At the limit: parses, prints back to itself and runs. */
const ACCEPTED: [string, string][] = [
  ['parentheses at the limit', `${times('(', MAX_NESTING)}a${times(')', MAX_NESTING)}`],
  ['NOTs at the limit', `${times('NOT ', MAX_NESTING)}a`],
  ['terms at the limit (flat, no nesting)', anded(MAX_TERMS)],
  ['additions at the limit', `* | eval x=${plus(MAX_OPERATORS)}`],
  ['function calls at the limit', `* | eval x=${times('abs(', MAX_NESTING)}1${times(')', MAX_NESTING)}`],
  ['subsearches at the limit', subs(MAX_NESTING)],
];

describe('query nesting limits', () => {
  for (const [name, q, message, position] of REJECTED) {
    it(`rejects ${name} with invalid_query at the token past the limit`, () => {
      assert.throws(
        () => parse(q),
        (e: unknown) => {
          assert.ok(isSvcError(e), `not an SvcError: ${String(e)}`);
          assert.equal(e.code, 'invalid_query');
          assert.equal(e.message, message);
          assert.equal(e.details?.position, position(q));
          return true;
        },
      );
    });
  }

  describe('at the limits', () => {
    let st: TestStorage;
    before(async () => {
      st = await openStorage();
      await st.engine.writer.write(makeEvents(50), { wait: true });
    });
    after(async () => st.close());

    for (const [name, q] of ACCEPTED) {
      it(`accepts ${name}, prints it back and runs it`, async () => {
        const parsed = parse(q);
        assert.deepEqual(parse(print(parsed)), parsed);
        const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
        const r = await svc.search(SYSTEM_PRINCIPAL, { q });
        assert.ok(r.meta.matched >= 0);
      });
    }
  });

  describe('over HTTP', () => {
    let srv: TestServer;
    let admin: string;
    before(async () => {
      srv = await startTestServer();
      admin = await adminToken(srv);
    });
    after(async () => srv.close());

    for (const [name, q, message, position] of REJECTED.slice(0, 2)) {
      it(`answers ${name} posted to /api/search with 400 invalid_query at the position`, async () => {
        const res = await fetch(`${srv.url}/api/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ q }),
        });
        assert.equal(res.status, 400);
        const body = (await res.json()) as { error: { code: string; message: string; position: number } };
        assert.deepEqual(
          [body.error.code, body.error.message, body.error.position],
          ['invalid_query', message, position(q)],
        );
      });
    }
  });
});
