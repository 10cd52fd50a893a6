import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerCache } from '../../src/dashboards/cache.js';

describe('the answer cache', () => {
  const make = (limits = { entries: 3, bytes: 1000, entryBytes: 400 }) => {
    const clock = { now: 0 };
    return { cache: new AnswerCache<string>(limits, () => clock.now), clock };
  };
  const answer = (v: string) => () => Promise.resolve(v);

  it('keeps an answer for its time to live, then runs again', async () => {
    const { cache, clock } = make();
    assert.equal((await cache.get('k', 1000, answer('a'))).cache, 'miss');
    clock.now = 999;
    assert.deepEqual(await cache.get('k', 1000, answer('b')), { value: 'a', cache: 'hit' });
    clock.now = 1000;
    assert.deepEqual(await cache.get('k', 1000, answer('c')), { value: 'c', cache: 'miss' });
    assert.deepEqual(cache.counts, { runs: 2, hits: 1, shared: 0 });
  });

  it('holds at most its entries and bytes, the least recently used going first', async () => {
    const { cache } = make();
    for (const k of ['a', 'b', 'c']) await cache.get(k, 60_000, answer(k));
    await cache.get('a', 60_000, answer('x')); // a is now the most recently used
    await cache.get('d', 60_000, answer('d'));
    assert.equal(cache.size().entries, 3);
    assert.equal((await cache.get('b', 60_000, answer('b2'))).cache, 'miss', 'b went first');
    assert.equal((await cache.get('a', 60_000, answer('a2'))).cache, 'hit');
    const big = 'x'.repeat(300);
    for (const k of ['p', 'q', 'r']) await cache.get(k, 60_000, answer(big));
    assert.ok(cache.size().bytes <= 1000, `${cache.size().bytes} bytes`);
    assert.equal((await cache.get('huge', 60_000, answer('y'.repeat(500)))).cache, 'miss');
    assert.equal((await cache.get('huge', 60_000, answer('z'))).cache, 'miss', 'an answer over entryBytes is not kept');
  });

  it('runs identical requests in flight once, and keeps no error', async () => {
    const { cache } = make();
    let release!: (v: string) => void;
    const slow = new Promise<string>((r) => (release = r));
    const a = cache.get('k', 1000, () => slow);
    const b = cache.get('k', 1000, answer('other'));
    release('one');
    assert.deepEqual(await Promise.all([a, b]), [
      { value: 'one', cache: 'miss' },
      { value: 'one', cache: 'shared' },
    ]);
    await assert.rejects(
      cache.get('e', 1000, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal((await cache.get('e', 1000, answer('fine'))).cache, 'miss');
  });
});
