import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PIPES } from '../../src/query/pipes/registry.js';
import { FUNCTIONS } from '../../src/query/expr/functions.js';
import { aggregationDocs, isAggName } from '../../src/query/pipes/aggregations.js';
import { languageReference, CORE_FIELDS_ORDER } from '../../src/query/language.js';
import { CORE_NAMES } from '../../src/query/schema.js';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';
import { compile } from '../../src/query/compile.js';
import type { ConstructDoc } from '../../src/query/doc.js';
import type { RelationInfo } from '../../src/storage/types.js';
import type { LookupCatalog } from '../../src/query/lookup-catalog.js';

/**
 * The language reference (GET /api/language) comes from docs kept beside each construct. Every
 * registered pipe, function and aggregation must have one, and every example must be a query the
 * real parser accepts, prints back unchanged and compiles.
 */

const REL: RelationInfo = { sql: '(SELECT 1)', fieldColumns: [], candidateEvents: 0 };
/** Every table the examples name, with the columns the lookup pipe's example reads. */
const LOOKUPS: LookupCatalog = {
  table: (name) => ({
    name,
    relation: "(SELECT 0 AS r, 'u1' AS c0, 'Ann' AS c1, 'core' AS c2)",
    columns: ['uid', 'name', 'team'].map((n, i) => ({ name: n, sql: `c${i}` })),
    rowSql: 'r',
  }),
};

function assertDoc(what: string, d: ConstructDoc | undefined): void {
  assert.ok(d, `${what} has no doc`);
  for (const k of ['syntax', 'description', 'example'] as const)
    assert.ok(typeof d[k] === 'string' && d[k].trim().length > 0, `${what}: empty ${k}`);
  assert.match(d.description, /^[A-Za-z0-9(].*\.$/, `${what}: the description is one sentence ending in a full stop`);
  assert.doesNotMatch(d.description, /\. [A-Z]/, `${what}: the description is one sentence`);
}

/** Parses an example, checks it prints back unchanged (aliases print as their main name) and compiles. */
function assertExample(what: string, example: string): ReturnType<typeof parse> {
  const q = parse(example);
  const printed = print(q);
  assert.deepEqual(parse(printed), q, `${what}: the example prints to a query that parses back the same`);
  compile(q, REL, { nowMs: Date.UTC(2026, 0, 1), limit: 10, range: { fromMs: 0, toMs: 3_600_000 }, lookups: LOOKUPS });
  return q;
}

describe('language reference', () => {
  for (const [name, def] of Object.entries(PIPES)) {
    it(`documents the pipe ${name} with an example the parser accepts`, () => {
      assertDoc(`pipe ${name}`, def.doc);
      assert.ok(
        def.doc.syntax.startsWith(`${name} `) || def.doc.syntax === name,
        `pipe ${name}: the syntax starts with its name`,
      );
      const q = assertExample(`pipe ${name}`, def.doc.example);
      assert.ok(def.doc.example.includes(`| ${name}`), `pipe ${name}: the example uses it`);
      // an alias (bucket) parses to its main pipe and prints under that name; the others print back exactly
      if (q.pipes.some((p) => p.kind === name))
        assert.equal(print(q), def.doc.example, `pipe ${name}: the example is canonical`);
    });
  }

  for (const [name, def] of Object.entries(FUNCTIONS)) {
    it(`documents the function ${name} with an example the parser accepts`, () => {
      assertDoc(`function ${name}`, def.doc);
      assert.ok(def.doc.syntax.startsWith(`${name}(`), `function ${name}: the syntax starts with "${name}("`);
      assertExample(`function ${name}`, def.doc.example);
      assert.equal(print(parse(def.doc.example)), def.doc.example, `function ${name}: the example is canonical`);
      assert.ok(def.doc.example.includes(`${name}(`), `function ${name}: the example calls it`);
    });
  }

  it('documents every aggregation the parser accepts, the percentiles under one entry', () => {
    const docs = aggregationDocs();
    const byName = new Map(docs.map((d) => [d.name, d]));
    // every name the parser accepts among these has an entry (pN through the p95 one), and the rest are refused
    const candidates = [
      ...docs.map((d) => d.name),
      ...Array.from({ length: 101 }, (_, i) => `p${i}`),
      'stdev',
      'mode',
      'range',
      'first',
      'last',
      'list',
      'perc95',
      'distinct_count',
      'estdc',
      'var',
    ];
    for (const name of candidates) {
      const accepted = isAggName(name);
      const entry = byName.get(name) ?? (/^p(erc)?\d+$/.test(name) ? byName.get('p95') : undefined);
      // per_second… only mean something in timechart
      const pipe = name.startsWith('per_') ? 'timechart' : 'stats';
      if (accepted) {
        assertDoc(`aggregation ${name}`, entry);
        assert.doesNotThrow(() => parse(`* | ${pipe} ${name}(x)`));
      } else {
        assert.throws(() => parse(`* | stats ${name}(x)`), /missing an aggregation/, name);
      }
    }
    assert.ok(isAggName('p1') && isAggName('p99') && !isAggName('p0') && !isAggName('p100'));
    for (const d of docs) {
      assert.ok(isAggName(d.name), `${d.name} is an aggregation the parser accepts`);
      assertExample(`aggregation ${d.name}`, d.example);
      assert.equal(print(parse(d.example)), d.example, `aggregation ${d.name}: the example is canonical`);
    }
    assert.deepEqual(byName.get('p95')?.syntax, 'p<1-99>(field) | perc<1-99>(field)');
  });

  it('gathers every pipe, aggregation and function, with the keywords and core fields', () => {
    const ref = languageReference();
    assert.deepEqual(
      ref.pipes.map((p) => p.name),
      Object.keys(PIPES).sort(),
    );
    assert.deepEqual(
      ref.functions.map((f) => f.name),
      Object.keys(FUNCTIONS).sort(),
    );
    assert.deepEqual(
      ref.aggregations.map((a) => a.name),
      aggregationDocs().map((a) => a.name),
    );
    assert.deepEqual(
      ref.pipes.find((p) => p.name === 'stats'),
      { name: 'stats', ...PIPES.stats.doc },
    );
    assert.deepEqual(new Set(ref.coreFields), new Set(CORE_NAMES));
    assert.deepEqual(ref.coreFields, [...CORE_FIELDS_ORDER]);
    for (const k of ['AND', 'OR', 'NOT', 'by', 'as']) assert.ok(ref.keywords.includes(k), k);
  });
});
