import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SearchAdmission, type AdmissionLimits } from '../../src/query/admission.js';
import { isSvcError } from '../../src/errors/svc-error.js';

/**
 * The admission gate of searches (query/admission.ts) on its own: who runs, who waits in which
 * order, who is refused and how. Waits are bounded by settings; none of these tests waits for one
 * to pass but the one about the bounded wait (a 50 ms bound).
 */
const limits = (over: Partial<AdmissionLimits> = {}): AdmissionLimits => ({
  maxRunning: 2,
  maxPerPrincipal: 2,
  maxQueued: 4,
  maxWaitMs: 60_000,
  monitorRunning: 1,
  ...over,
});
const tick = () => new Promise((r) => setImmediate(r));
const refusedTooMany = (e: unknown) =>
  isSvcError(e) && e.code === 'too_many_searches' && e.kind === 'too_many_requests' && e.retryAfterSecs !== undefined;

describe('search admission', () => {
  it('lets searches run up to the cap, then admits the waiters in arrival order as slots free', async () => {
    const gate = new SearchAdmission(limits());
    const a = await gate.admit({ who: 'u1' });
    const b = await gate.admit({ who: 'u2' });
    const order: string[] = [];
    const waiters = ['u3', 'u4', 'u5'].map((who) => gate.admit({ who }).then((release) => (order.push(who), release)));
    await tick();
    assert.deepEqual(gate.load, { running: 2, queued: 3, monitorsRunning: 0 });
    a();
    await tick();
    assert.deepEqual(order, ['u3']);
    b();
    (await waiters[0])();
    await tick();
    assert.deepEqual(order, ['u3', 'u4', 'u5']);
    for (const w of waiters) (await w)();
    assert.deepEqual(gate.load, { running: 0, queued: 0, monitorsRunning: 0 });
  });

  it('holds a principal at its own cap while another principal runs past it', async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 3, maxPerPrincipal: 1 }));
    const first = await gate.admit({ who: 'alice' });
    let aliceSecond = false;
    const waiting = gate.admit({ who: 'alice' }).then((r) => ((aliceSecond = true), r));
    // bob arrives after alice's second search and runs at once: alice's backlog holds up only alice
    const bob = await gate.admit({ who: 'bob' });
    await tick();
    assert.equal(aliceSecond, false);
    first();
    (await waiting)();
    assert.equal(aliceSecond, true);
    bob();
  });

  it('refuses at once when the queue is full, naming the limits and their settings', async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 1, maxQueued: 1, maxWaitMs: 3000 }));
    const running = await gate.admit({ who: 'u1' });
    const queued = gate.admit({ who: 'u2' });
    await assert.rejects(gate.admit({ who: 'u3' }), (e: unknown) => {
      assert.ok(refusedTooMany(e));
      assert.match(
        (e as Error).message,
        /queue is full.*at most 1 searches at once \(SVC_MAX_CONCURRENT_SEARCHES\) and 2 per user or key \(SVC_MAX_SEARCHES_PER_USER\)/,
      );
      assert.equal((e as { retryAfterSecs: number }).retryAfterSecs, 3);
      return true;
    });
    running();
    (await queued)();
  });

  it('refuses a search that waited longer than the bound, and lets the next one in when a slot frees', async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 1, maxWaitMs: 50 }));
    const running = await gate.admit({ who: 'u1' });
    await assert.rejects(
      gate.admit({ who: 'u2' }),
      (e: unknown) => refusedTooMany(e) && /no search slot freed within 0.05 s/.test((e as Error).message),
    );
    assert.equal(gate.load.queued, 0);
    running();
    (await gate.admit({ who: 'u2' }))();
  });

  it("drops a waiter whose caller went away, with the caller's reason", async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 1 }));
    const running = await gate.admit({ who: 'u1' });
    const ac = new AbortController();
    const waiting = gate.admit({ who: 'u2' }, ac.signal);
    ac.abort(new Error('client gone'));
    await assert.rejects(waiting, /client gone/);
    assert.equal(gate.load.queued, 0);
    running();
    assert.equal(gate.load.running, 0);
  });

  it('runs monitors in their own slots while callers fill theirs, one after another', async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 1, maxQueued: 0 }));
    const user = await gate.admit({ who: 'u1' });
    await assert.rejects(gate.admit({ who: 'u2' }), refusedTooMany);
    const m1 = await gate.admit({ who: 'u1', lane: 'monitor' });
    let second = false;
    const m2 = gate.admit({ who: 'u2', lane: 'monitor' }).then((r) => ((second = true), r));
    await tick();
    assert.equal(second, false);
    m1();
    (await m2)();
    assert.deepEqual(gate.load, { running: 1, queued: 0, monitorsRunning: 0 });
    user();
  });

  it('runs one search at a time while ingest is behind, and the others as soon as it caught up', async () => {
    let behind = true;
    const gate = new SearchAdmission(limits({ maxRunning: 3, maxPerPrincipal: 3, ingestBehind: () => behind }));
    const first = await gate.admit({ who: 'u1' });
    let second = false;
    const waiting = gate.admit({ who: 'u2' }).then((r) => ((second = true), r));
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(second, false, 'a second search waits while ingest is behind');
    behind = false;
    // nothing frees a slot: the gate looks again by itself
    (await waiting)();
    assert.equal(second, true);
    first();
  });

  it('counts a release only once', async () => {
    const gate = new SearchAdmission(limits({ maxRunning: 1 }));
    const r = await gate.admit({ who: 'u1' });
    r();
    r();
    assert.equal(gate.load.running, 0);
    const again = await gate.admit({ who: 'u1' });
    assert.equal(gate.load.running, 1);
    again();
  });
});
