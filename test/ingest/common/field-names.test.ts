import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isFieldName, quoteString } from '../../../src/query/lexer.js';
import type { EventJson } from '../../../src/query/types.js';
import { searchEvents, startE2E, type E2E } from '../helpers/e2e.js';

/**
 * No value of an acknowledged event is lost to its field's name (issue 24 item 1,
 * docs/native-ingest.md "Field names"): names equal but for case are fields apart, each found by
 * `name=value`, while live and once sealed; names that flatten alike keep both values.
 */

type Flat = Record<string, string | number>;

const REPRO = { message: 'p', Foo: 'a', foo: 'b', FOO: 'c', 'a.b': 1, 'A.B': 2, é: 'x', É: 'y' };
const REPRO_FIELDS = { Foo: 'a', foo: 'b', FOO: 'c', 'a.b': 1, 'A.B': 2, é: 'x', É: 'y' };

/** The search for events whose field `name` equals `v`: in the search part when the name lexes there, else `where` with a quoted name. */
function queryFor(name: string, v: string | number): string {
  const value = typeof v === 'number' ? String(v) : quoteString(v);
  if (isFieldName(name)) return `${name}=${value}`;
  return `* | where ${quoteString(name, "'")}=${value}`;
}

describe('field names: every value of an acknowledged event is found', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(() => e.close());

  const flush = () => e.srv.deps.storage.flush();
  const search = (index: string, q = '*') => searchEvents(e.srv, e.searchKey, { index, q });
  const post = async (path: string, auth: string, body: string) => {
    const res = await fetch(`${e.srv.url}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200, `${path}: ${await res.text()}`);
  };
  const native = (index: string, events: object[]) =>
    post(`/api/ingest?index=${index}`, `Bearer ${e.token}`, events.map((x) => JSON.stringify(x)).join('\n') + '\n');

  /** Each field of `want` is the event's and `name=value` finds it (one event in `index`). */
  async function assertFound(index: string, want: Flat, phase: string): Promise<void> {
    const [ev, ...rest] = await search(index);
    assert.equal(rest.length, 0, `${phase}: one event`);
    for (const [k, v] of Object.entries(want)) {
      assert.deepEqual(ev.fields[k], v, `${phase}: fields[${JSON.stringify(k)}] of ${JSON.stringify(ev.fields)}`);
      assert.equal((await search(index, queryFor(k, v))).length, 1, `${phase}: ${queryFor(k, v)}`);
    }
  }

  const protocols: [string, (index: string) => Promise<void>][] = [
    ['native', (index) => native(index, [REPRO])],
    ['_bulk', (index) => post(`/${index}/_bulk`, `ApiKey ${e.token}`, `{"index":{}}\n${JSON.stringify(REPRO)}\n`)],
    ['HEC', (index) => post('/services/collector/event', `Splunk ${e.token}`, JSON.stringify({ event: REPRO, index }))],
  ];
  for (const [protocol, send] of protocols) {
    it(`keeps Foo, foo, FOO, a.b, A.B, é and É of one event apart over ${protocol}, live and sealed`, async () => {
      const index = `repro-${protocol.replace('_', '')}`.toLowerCase();
      await send(index);
      await assertFound(index, REPRO_FIELDS, 'live');
      await flush();
      await assertFound(index, REPRO_FIELDS, 'sealed');
    });
  }

  it('keeps Foo of one event and foo of the next in the same segment and block', async () => {
    await native('across', [
      { message: 'one', Foo: 'a1' },
      { message: 'two', foo: 'b2' },
    ]);
    for (const phase of ['live', 'sealed']) {
      if (phase === 'sealed') await flush();
      const byMessage = new Map((await search('across')).map((ev) => [ev.message, ev.fields]));
      assert.deepEqual(byMessage.get('one'), { Foo: 'a1' }, phase);
      assert.deepEqual(byMessage.get('two'), { foo: 'b2' }, phase);
      assert.deepEqual(
        (await search('across', 'Foo=a1')).map((ev) => ev.message),
        ['one'],
        phase,
      );
      assert.deepEqual(
        (await search('across', 'foo=b2')).map((ev) => ev.message),
        ['two'],
        phase,
      );
      assert.deepEqual((await search('across', 'foo=a1')).length, 0, `${phase}: names are case-sensitive`);
    }
  });

  it('keeps Foo promoted in one block and foo in another apart', async () => {
    await native('blocks', [{ message: 'one', Foo: 'a1' }]);
    await flush();
    await native('blocks', [{ message: 'two', foo: 'b2' }]);
    await flush();
    const byMessage = new Map((await search('blocks')).map((ev) => [ev.message, ev.fields]));
    assert.deepEqual(byMessage.get('one'), { Foo: 'a1' });
    assert.deepEqual(byMessage.get('two'), { foo: 'b2' });
    assert.deepEqual(
      (await search('blocks', 'foo=*')).map((ev) => ev.message),
      ['two'],
    );
  });

  it('keeps Foo and foo apart in pipes, the fields summary and a CSV export', async () => {
    await native('answers', [
      { message: 'one', Foo: 'a1', foo: 'b1' },
      { message: 'two', Foo: 'a1', foo: 'b2' },
    ]);
    const get = async (path: string, params: Record<string, string>) => {
      const res = await fetch(
        `${e.srv.url}${path}?${new URLSearchParams({ env: 'shipping', index: 'answers', ...params })}`,
        { headers: { authorization: `Bearer ${e.searchKey}` } },
      );
      assert.equal(res.status, 200, path);
      return res;
    };
    for (const phase of ['live', 'sealed']) {
      if (phase === 'sealed') await flush();
      const stats = (await (await get('/api/search', { q: '* | stats count by Foo, foo | sort foo' })).json()) as {
        columns: string[];
        rows: unknown[][];
      };
      assert.deepEqual(stats.columns, ['Foo', 'foo', 'count'], phase);
      assert.deepEqual(
        stats.rows,
        [
          ['a1', 'b1', 1],
          ['a1', 'b2', 1],
        ],
        phase,
      );
      const renamed = (await (
        await get('/api/search', { q: '* | eval FOO=foo | table Foo, FOO | sort FOO' })
      ).json()) as { rows: unknown[][] };
      assert.deepEqual(
        renamed.rows,
        [
          ['a1', 'b1'],
          ['a1', 'b2'],
        ],
        phase,
      );
      const summary = (await (await get('/api/fields', { q: '*' })).json()) as {
        fields: { name: string; top: { value: unknown }[] }[];
      };
      const values = (n: string) =>
        summary.fields
          .find((f) => f.name === n)
          ?.top.map((t) => t.value)
          .sort();
      assert.deepEqual([values('Foo'), values('foo')], [['a1'], ['b1', 'b2']], phase);
      const csv = await (await get('/api/export', { q: '*', format: 'csv' })).text();
      const [header, ...rows] = csv.trim().split(/\r?\n/);
      assert.ok(header.endsWith(',Foo,foo'), `${phase}: ${header}`);
      assert.deepEqual(rows.map((r) => r.split(',').slice(-2).join(',')).sort(), ['a1,b1', 'a1,b2'], phase);
    }
  });

  it('finds fields named like the columns the store reads with (_extra, _f, _x, _xe, _day, file_row_number)', async () => {
    const own = {
      _extra: 'e1',
      _f: 'f1',
      _x: 'x1',
      _xe: 'xe1',
      _day: 'd1',
      file_row_number: 'r1',
      _EXTRA: 'E1',
      File_Row_Number: 'R1',
    };
    await native('internal', [{ message: 'i', ...own }]);
    await assertFound('internal', own, 'live');
    await flush();
    await assertFound('internal', own, 'sealed');
  });

  it('keeps both values of a nested and a dotted name that flatten alike: the second is <name>_2', async () => {
    await native('dotted', [{ message: 'd', a: { b: 1 }, 'a.b': 2 }]);
    await assertFound('dotted', { 'a.b': 1, 'a.b_2': 2 }, 'live');
    await flush();
    await assertFound('dotted', { 'a.b': 1, 'a.b_2': 2 }, 'sealed');
  });

  it('finds every value under generated field names, live and sealed (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(eventArb, { minLength: 1, maxLength: 8 }), async (specs) => {
        const index = `prop-${run++}`;
        const events = specs.map((s, i) => buildEvent(s, `${index}-${i}`));
        await native(
          index,
          events.map((x) => x.body),
        );
        await checkAll(index, events, 'live');
        await flush();
        await checkAll(index, events, 'sealed');
      }),
      { seed: 24_001, numRuns: 8, endOnFailure: true },
    );
  });

  /** Every generated value is the event's, under its own name when nothing else claims that name, and its name=value finds it. */
  async function checkAll(index: string, events: Built[], phase: string): Promise<void> {
    const byId = new Map((await search(index)).map((ev) => [String(ev.fields.prop_id), ev]));
    assert.equal(byId.size, events.length, `${phase}: every event of ${index}`);
    for (const b of events) {
      const ev = byId.get(b.id)!;
      assert.ok(ev, `${phase}: event ${b.id}`);
      for (const [name, v] of b.values) {
        const where = whereIs(ev, v);
        assert.ok(where !== undefined, `${phase}: value ${v} of ${JSON.stringify(name)} in ${JSON.stringify(ev)}`);
        if (b.ordinary.has(name)) assert.equal(where, name, `${phase}: ${JSON.stringify(name)} keeps its name`);
        const hits = await search(index, queryFor(where, v));
        assert.ok(
          hits.some((h) => h.fields.prop_id === b.id),
          `${phase}: ${queryFor(where, v)} finds ${b.id}`,
        );
      }
    }
  }
});

/** The field (or core column) of `ev` that holds `v`. */
function whereIs(ev: EventJson, v: string | number): string | undefined {
  for (const [k, x] of Object.entries(ev.fields)) if (x === v) return k;
  for (const k of ['host', 'source', 'sourcetype', 'message'] as const) if (ev[k] === String(v)) return k;
  return undefined;
}

// --- generated events -------------------------------------------------------------------------

/** Names that mean something to the door in some case (time, message, host… and their aliases), or that it makes when renaming. */
const SPECIAL = new Set([
  '_time',
  '@timestamp',
  'timestamp',
  'time',
  'ts',
  'message',
  'msg',
  'log',
  '_raw',
  'host',
  'hostname',
  'source',
  'sourcetype',
  'env',
  'index',
  'host.name',
  'time_original',
  'prop_id',
]);

const PICKED = [
  'foo',
  'Foo',
  'FOO',
  'fOo',
  'a.b',
  'A.B',
  'a.B',
  'é',
  'É',
  'e\u0301',
  'E\u0301',
  'ß',
  'SS',
  'ss',
  'ẞ',
  'İ',
  'i',
  'I',
  'ı',
  'i\u0307',
  'Σ',
  'σ',
  'ς',
  '𐐀',
  '𐐨',
  '😀',
  '🙂.x',
  'a b',
  ' ',
  '',
  '.',
  '.a',
  'a.',
  'a..b',
  '..',
  'MESSAGE',
  'Message',
  'HOST',
  'Host',
  'ENV',
  'Env',
  'Index',
  'INDEX',
  '_TIME',
  '_Time',
  'Source',
  'SourceType',
  'SOURCETYPE',
  'message_user',
  'Timestamp',
  'TS',
  'Msg',
  'LOG',
  'Hostname',
  '_extra',
  '_EXTRA',
  '_f',
  '_F',
  '_xe',
  '_x',
  '_day',
  'file_row_number',
  'FILE_ROW_NUMBER',
  '__proto__',
  'constructor',
  'toString',
  'empty_name',
  'x_2',
  'X_2',
  '*',
  'a/b~c',
  'q"q',
  "it's",
  'back\\slash',
  'tab\there',
  '\u0001',
  'A\u0001',
  'a\u00010',
  'count',
  'COUNT',
];

/** A name: a picked one, one of them with random case flips, or random text (any script). */
const nameArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PICKED) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...PICKED), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
      .map(([n, flips]) => [...n].map((c, i) => (flips[i % 8] ? c.toUpperCase() : c.toLowerCase())).join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
);

/** A field of a generated event: a top-level name, or `outer` holding `inner` (flattened to `outer.inner`). */
type FieldSpec = { name: string; inner?: string; num: boolean };
const fieldArb: fc.Arbitrary<FieldSpec> = fc.record({
  name: nameArb,
  inner: fc.option(nameArb, { nil: undefined, freq: 4 }),
  num: fc.boolean(),
});
const eventArb = fc.array(fieldArb, { minLength: 1, maxLength: 8 });

interface Built {
  id: string;
  body: Record<string, unknown>;
  /** Flattened name → the generated value, as the door sees them. */
  values: [string, string | number][];
  /** Names the door must keep as sent (nothing else in the event flattens to them, no special meaning). */
  ordinary: Set<string>;
}

/**
 * One event from its specs, with a unique value per field (numbers or tokens that parse as no
 * time). A spec whose top-level key the event already has (as a value or an object) is skipped:
 * JSON keys of one object are unique.
 */
function buildEvent(specs: FieldSpec[], id: string): Built {
  const body: Record<string, unknown> = { message: `m ${id}`, prop_id: id };
  const values: [string, string | number][] = [];
  let n = 0;
  for (const s of specs) {
    const v = s.num ? 9_000_000 + Number(id.replace(/\D/g, '')) * 100 + n++ : `v${id.replace(/\W/g, '')}x${n++}`;
    const cur = Object.prototype.hasOwnProperty.call(body, s.name) ? body[s.name] : undefined;
    if (s.inner === undefined) {
      if (cur !== undefined) continue;
      Object.defineProperty(body, s.name, { value: v, enumerable: true, writable: true, configurable: true });
      values.push([s.name, v]);
    } else {
      const obj = cur ?? {};
      if (typeof obj !== 'object' || Object.prototype.hasOwnProperty.call(obj, s.inner)) continue;
      Object.defineProperty(obj, s.inner, { value: v, enumerable: true, writable: true, configurable: true });
      Object.defineProperty(body, s.name, { value: obj, enumerable: true, writable: true, configurable: true });
      values.push([`${s.name}.${s.inner}`, v]);
    }
  }
  const counts = new Map<string, number>();
  for (const [name] of values) counts.set(name, (counts.get(name) ?? 0) + 1);
  const ordinary = new Set(
    values.map(([name]) => name).filter((name) => counts.get(name) === 1 && isOrdinary(name, values)),
  );
  return { id, body, values, ordinary };
}

/** A name no door rule touches: not empty, no NUL, no special meaning in any case, not a name a rename of another could make. */
function isOrdinary(name: string, values: [string, string | number][]): boolean {
  if (
    name === '' ||
    name.includes('\u0000') ||
    SPECIAL.has(name.toLowerCase()) ||
    SPECIAL.has(name.split('.')[0].toLowerCase())
  )
    return false;
  // `x_2` may be taken by a second `x`, `message_user` by a renamed `MESSAGE`, `empty_name` by a renamed ''
  return !values.some(([other]) => other !== name && (name.startsWith(other + '_') || other === ''));
}
