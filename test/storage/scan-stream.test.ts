import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvents, openStorage, type TestStorage } from './helpers.js';
import type { ScanSpec } from '../../src/storage/types.js';

/** EventStore.scan's `stream`: a statement's rows in chunks, under the scan's signal. */
describe('streaming a scan', () => {
  let st: TestStorage;
  const N = 20_000;
  const spec = (signal?: AbortSignal): ScanSpec => ({
    envs: ['default'],
    indexes: null,
    requiredTokens: [],
    fields: ['seq'],
    signal,
  });

  before(async () => {
    st = await openStorage();
    await st.engine.writer.write(makeEvents(N / 2), { wait: true });
    await st.engine.flush();
    // half sealed in blocks, half still live in the WAL
    await st.engine.writer.write(makeEvents(N / 2, { startUs: Date.UTC(2026, 0, 11) * 1000, tag: 'y' }), {
      wait: true,
    });
  });
  after(async () => {
    await st.close();
  });

  it('yields the same rows as exec, in the statement order, in several chunks', async () => {
    const sql = (rel: string) => `SELECT seq, host, _time FROM ${rel} AS e ORDER BY _time DESC, seq DESC`;
    const { whole, chunks } = await st.engine.scan(spec(), async (rel, exec, stream) => {
      const whole = await exec(sql(rel.sql));
      const chunks: unknown[][][] = [];
      for await (const c of stream(sql(rel.sql))) {
        assert.deepEqual(c.columns, ['seq', 'host', '_time']);
        chunks.push(c.rows);
      }
      return { whole, chunks };
    });
    assert.ok(chunks.length > 1, `${chunks.length} chunks`);
    assert.equal(whole.rows.length, N);
    assert.deepEqual(chunks.flat(), whole.rows);
    assert.equal(typeof chunks[0][0][0], 'number');
  });

  it('rejects with the signal reason when the scan is aborted mid-stream, then serves the next scan', async () => {
    const ac = new AbortController();
    let seen = 0;
    await assert.rejects(
      st.engine.scan(spec(ac.signal), async (rel, _exec, stream) => {
        for await (const c of stream(`SELECT seq FROM ${rel.sql} AS e`)) {
          seen += c.rows.length;
          ac.abort(new Error('caller left'));
        }
      }),
      /caller left/,
    );
    assert.ok(seen > 0 && seen < N, `read ${seen} rows before stopping`);
    const n = await st.engine.scan(
      spec(),
      async (rel, exec) => (await exec(`SELECT count(*) FROM ${rel.sql} AS e`)).rows[0][0],
    );
    assert.equal(n, N);
  });

  it('interrupts DuckDB when the signal fires before the first chunk is ready', async () => {
    const t0 = Date.now();
    await assert.rejects(
      st.engine.scan(spec(AbortSignal.timeout(200)), async (_rel, _exec, stream) => {
        for await (const c of stream('SELECT count(DISTINCT (a * 7919) % 1000000007) FROM range(2000000000) t(a)'))
          void c;
      }),
      (e: unknown) => (e as Error).name === 'TimeoutError',
    );
    assert.ok(Date.now() - t0 < 10_000, `stopped after ${Date.now() - t0} ms`);
  });

  it('lets a consumer stop early and keeps the engine usable', async () => {
    for (let i = 0; i < 8; i++) {
      const first = await st.engine.scan(spec(), async (rel, _exec, stream) => {
        for await (const c of stream(`SELECT seq FROM ${rel.sql} AS e ORDER BY seq`)) return c.rows[0][0];
        return undefined;
      });
      assert.equal(first, 0);
    }
    const n = await st.engine.scan(
      spec(),
      async (rel, exec) => (await exec(`SELECT count(*) FROM ${rel.sql} AS e`)).rows[0][0],
    );
    assert.equal(n, N);
  });
});
