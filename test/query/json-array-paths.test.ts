import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, writeHalfSealed, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { eventFromObject } from '../../src/events/flatten.js';
import { timeContext } from '../../src/events/timestamp.js';
import { parse } from '../../src/query/parser.js';
import { print } from '../../src/query/printer.js';

/**
 * Splunk's JSON array paths (`targetResources{}.type`, `"user.groups{}"=x`, `a{2}`): ingest keeps
 * an array as its JSON text (events/flatten.ts); a search reads every element's value as a
 * multivalue. Events shaped like Azure AD audit records go through the real decode and the real
 * store (half sealed, half live); each answer is checked against the test's own walk of the objects.
 */
const T0 = Date.UTC(2024, 5, 1);
const TYPES = ['User', 'Group', 'Device'];
const RECORDS = Array.from({ length: 90 }, (_, i) => ({
  time: new Date(T0 + i * 60_000).toISOString(),
  operationName: i % 4 === 0 ? 'Invite external user' : 'Update user',
  properties: {
    initiatedBy: { user: { userPrincipalName: `admin${i % 3}@corp.example` } },
    targetResources: Array.from({ length: (i % 3) + 1 }, (_, k) => ({
      type: TYPES[(i + k) % 3],
      displayName: `res-${(i * 7 + k) % 11}`,
    })),
    authenticationDetails: [{ succeeded: i % 5 !== 0 }, { succeeded: true }].slice(0, (i % 2) + 1),
  },
  user: { groups: i % 6 === 0 ? [] : [`g${i % 4}`, 'all'] },
}));
type Rec = (typeof RECORDS)[number];

function countBy<T>(xs: T[], keys: (x: T) => string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) for (const k of keys(x)) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}
const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
/** Newest first, as a plain search returns events. */
const newestFirst = [...RECORDS].reverse();

describe('JSON array paths (a{}.b) over stored JSON events', () => {
  let st: TestStorage;
  let svc: QueryService;
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, limit: 1000 });

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const ctx = timeContext('UTC', st.clock.now());
    const d = { env: 'default', index: 'aad', host: 'h', source: 's', sourcetype: 'azure:aad', timeUs: 0 };
    await writeHalfSealed(
      st.engine,
      RECORDS.map((r) => eventFromObject(r, JSON.stringify(r), d, ctx)),
    );
  });
  after(() => st.close());

  it('parses and prints array paths in the search, in expressions and in field lists', () => {
    for (const q of [
      'properties.authenticationDetails{}.succeeded=false | stats count by user.groups{}',
      '"user.groups{}"=g1 | rename properties.targetResources{}.type as type | table type, user.groups{}',
      'x | eval n=mvcount(properties.targetResources{}.displayName), first=properties.targetResources{1}.type',
      'x | rex field=properties.targetResources{}.displayName "res-(?<n>\\d+)"',
    ])
      assert.equal(print(parse(print(parse(q)))), print(parse(q)), q);
  });

  it('matches an event when one element has the value, and != when none has', async () => {
    const failed = (r: Rec) => r.properties.authenticationDetails.some((a) => !a.succeeded);
    const r = await search('properties.authenticationDetails{}.succeeded=false | table operationName');
    assert.equal(r.rows?.length, RECORDS.filter(failed).length);
    assert.ok((r.rows?.length ?? 0) > 0);
    const quoted = await search('"properties.targetResources{}.type"=device | stats count');
    assert.deepEqual(quoted.rows, [
      [RECORDS.filter((x) => x.properties.targetResources.some((t) => t.type === 'Device')).length],
    ]);
    const none = await search('properties.targetResources{}.type!=Device | stats count');
    assert.deepEqual(none.rows, [
      [RECORDS.filter((x) => x.properties.targetResources.every((t) => t.type !== 'Device')).length],
    ]);
  });

  it('groups by every value of an array (stats … by a{}) and gathers values(a{}.b)', async () => {
    const r = await search('* | stats count by user.groups{}');
    assert.deepEqual(r.rows, sorted(countBy(RECORDS, (x) => [...new Set(x.user.groups)])));
    const v = await search(
      'operationName="Invite external user" | stats values(properties.targetResources{}.displayName) as names by properties.initiatedBy.user.userPrincipalName',
    );
    const expect = new Map<string, Set<string>>();
    for (const x of RECORDS.filter((y) => y.operationName === 'Invite external user')) {
      const k = x.properties.initiatedBy.user.userPrincipalName;
      const s = expect.get(k) ?? new Set();
      x.properties.targetResources.forEach((t) => s.add(t.displayName));
      expect.set(k, s);
    }
    assert.deepEqual(
      v.rows,
      [...expect].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, s]) => [k, [...s].sort()]),
    );
  });

  it('renames, tables and evaluates array paths, {N} as the N-th element', async () => {
    const r = await search(
      '* | rename properties.targetResources{}.type as type | eval n=mvcount(type), first=properties.targetResources{1}.displayName | table type, n, first | head 10',
    );
    assert.deepEqual(
      r.rows,
      newestFirst
        .slice(0, 10)
        .map((x) => [
          x.properties.targetResources.map((t) => t.type),
          x.properties.targetResources.length,
          x.properties.targetResources[0].displayName,
        ]),
    );
  });

  it('reads an array path with rex field= and where', async () => {
    const r = await search(
      '* | rex field=properties.targetResources{}.displayName "res-(?<n>\\d+)" | where n="3" | stats count',
    );
    // rex on a multivalue reads its first value (Splunk's rule)
    assert.deepEqual(r.rows, [[RECORDS.filter((x) => x.properties.targetResources[0].displayName === 'res-3').length]]);
    const w = await search('* | where \'user.groups{}\'="g2" | stats count');
    assert.deepEqual(w.rows, [[RECORDS.filter((x) => x.user.groups.includes('g2')).length]]);
  });
});
