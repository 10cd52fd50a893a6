import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage, type TestStorage } from '../storage/helpers.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import type { LogEvent } from '../../src/events/event.js';

/**
 * A table answer holds at most 10,000 rows. Past that it must say it was cut, never look whole:
 * a timechart's statement rows are (bucket, series) pairs, so 101 hosts over 100 minutes (10,100
 * pairs) used to end the chart early without a word, its last bucket short of some hosts.
 */
const T0 = Date.UTC(2025, 6, 1, 0, 0, 0);
const HOSTS = Array.from({ length: 101 }, (_, i) => `h${String(i).padStart(3, '0')}`);
const MINUTES = 100;

describe('table answers cut at 10,000 rows say so', () => {
  let st: TestStorage;
  let svc: QueryService;
  const events: LogEvent[] = [];
  for (let m = 0; m < MINUTES; m++)
    for (const host of HOSTS)
      events.push({
        timeUs: (T0 + m * 60_000 + 1_000) * 1000,
        env: 'default',
        index: 'main',
        host,
        source: 'test',
        sourcetype: 'unit',
        message: `tick ${m} on ${host}`,
        fields: { m },
      });
  const range = { from: new Date(T0).toISOString(), to: new Date(T0 + MINUTES * 60_000).toISOString() };

  before(async () => {
    st = await openStorage();
    svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    await st.engine.writer.write(events, { wait: true });
  });
  after(async () => {
    await st.close();
  });

  it('a timechart by a field whose (bucket, series) rows pass the cap ends at its last whole bucket and says where', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '* | timechart span=1m count by host', ...range });
    assert.deepEqual(r.columns, ['_time', ...HOSTS]);
    // 10,000 pairs hold 99 whole minutes (9,999 pairs) and one short one, which is left out
    assert.equal(r.rows!.length, 99);
    for (const row of r.rows!)
      assert.deepEqual(
        row.slice(1),
        HOSTS.map(() => 1),
        `every host in ${String(row[0])}`,
      );
    assert.equal(r.meta.warnings?.length, 1);
    assert.match(r.meta.warnings[0], /more than 10,000 \(time, series\) rows.*ends at 2025-07-01T01:38:00/);
  });

  it('a timechart under the cap, and a stats table under it, carry no warning', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, {
      q: '* | timechart span=1m count by host limit=0',
      ...range,
      from: new Date(T0 + 50 * 60_000).toISOString(),
    });
    assert.equal(r.rows!.length, 50);
    assert.equal(r.meta.warnings, undefined);
    const s = await svc.search(SYSTEM_PRINCIPAL, { q: '* | stats count by host', ...range });
    assert.equal(s.rows!.length, 101);
    assert.equal(s.meta.warnings, undefined);
  });

  it('a stats table of more than 10,000 groups keeps the first 10,000 and says so', async () => {
    const r = await svc.search(SYSTEM_PRINCIPAL, { q: '* | stats count by host, m', ...range });
    assert.equal(r.rows!.length, 10_000);
    assert.match(r.meta.warnings?.[0] ?? '', /more than 10,000 rows: only the first 10,000 are shown/);
  });
});
