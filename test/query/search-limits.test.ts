import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeEvents, openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';

/**
 * A search runs under SVC_SEARCH_TIMEOUT_SECS and stops when its caller goes away: DuckDB is
 * interrupted mid-query, the caller gets a clear error, and the next search runs as usual.
 */
describe('search limits', () => {
  let st: TestStorage;
  const Q = '* | eval a = lower(message) . host | stats dc(a) by host';

  before(async () => {
    st = await openStorage();
    await st.engine.writer.write(makeEvents(50_000), { wait: true });
  });
  after(async () => {
    await st.close();
  });

  it('stops a search past its time limit with query_timeout (503), then serves the next one', async () => {
    const stopped: { reason: string; query: string; principal: string }[] = [];
    const tight = new QueryService({
      store: st.engine,
      control: st.control,
      clock: st.clock,
      timeoutMs: 1,
      onStopped: (s) => stopped.push(s),
    });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        tight.search(SYSTEM_PRINCIPAL, { q: Q }),
        (e: unknown) =>
          isSvcError(e) && e.code === 'query_timeout' && e.kind === 'unavailable' && /stopped/.test(e.message),
      );
    }
    // each one is told to the self-log's hook, with who asked and what
    assert.deepEqual(
      stopped.map((s) => [s.reason, s.query, s.principal]),
      Array(3).fill(['query_timeout', Q, 'api_key:svc']),
    );
    const normal = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const r = await normal.search(SYSTEM_PRINCIPAL, { q: Q });
    assert.deepEqual(
      r.rows!.map((x) => x[1]),
      [16_667, 16_667, 16_666],
    );
  });

  it('stops a search whose caller went away with request_cancelled', async () => {
    const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(
      svc.search(SYSTEM_PRINCIPAL, { q: Q, signal: ac.signal }),
      (e: unknown) => isSvcError(e) && e.code === 'request_cancelled',
    );
    await assert.rejects(
      svc.histogram(SYSTEM_PRINCIPAL, { q: 'x', signal: ac.signal }),
      (e: unknown) => isSvcError(e) && e.code === 'request_cancelled',
    );
  });

  it('interrupts DuckDB in the middle of a long query (a scan under an aborting signal)', async () => {
    const t0 = Date.now();
    const spec = { envs: ['default'], indexes: null, requiredTokens: [], fields: [], signal: AbortSignal.timeout(200) };
    await assert.rejects(
      st.engine.scan(spec, (_rel, exec) =>
        exec('SELECT count(DISTINCT (a * 7919) % 1000000007) FROM range(2000000000) t(a)'),
      ),
      (e: unknown) => (e as Error).name === 'TimeoutError',
    );
    assert.ok(Date.now() - t0 < 10_000, `stopped after ${Date.now() - t0} ms`);
    const n = await st.engine.scan(
      { envs: ['default'], indexes: null, requiredTokens: [], fields: [] },
      async (rel, exec) => (await exec(`SELECT count(*) AS n FROM ${rel.sql} AS e`)).rows[0][0],
    );
    assert.equal(Number(n), 50_000);
  });
});
