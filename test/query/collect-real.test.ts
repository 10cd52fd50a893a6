import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestStorage } from '../storage/helpers.js';
import {
  accessLine,
  REAL_DATA,
  REAL_LOGS,
  REAL_LOGS_PRESENT,
  realLines,
  storeSealedAndLive,
} from '../helpers/real-logs.js';
import { QueryService } from '../../src/query/service.js';
import { eventSinkOf } from '../../src/query/event-sink.js';
import { DEFAULT_EVENT_LIMITS } from '../../src/events/limits.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';

/**
 * `collect` over the real Apache access log, stored sealed and live: the rows and events it writes
 * through the storage writer are found by a search of the index they went to, and their counts,
 * texts and times are those this test computes itself from the raw lines.
 */
const present = REAL_LOGS_PRESENT;
if (!present) console.log(`# skipping collect on real logs: no real data at ${REAL_DATA} (set SVC_REAL_DATA)`);

describe('collect over a real Apache log', { skip: present ? false : `no real data at ${REAL_DATA}` }, () => {
  let st: TestStorage;
  let svc: QueryService;
  const lines = present ? realLines(REAL_LOGS.apache) : [];
  const access = lines.map((l) => accessLine(l)!);
  const search = (q: string) => svc.search(SYSTEM_PRINCIPAL, { q, env: 'default', limit: 10_000, writes: 'allow' });

  before(async () => {
    ({ st } = await storeSealedAndLive());
    svc = new QueryService({
      store: st.engine,
      control: st.control,
      clock: st.clock,
      eventSink: eventSinkOf(st.engine.writer, DEFAULT_EVENT_LIMITS, 'collector'),
    });
  });
  after(async () => st?.close());

  for (const idx of ['apache_sealed', 'apache_live']) {
    it(`writes the counts by status of ${idx} as events a search of the new index adds up again`, async () => {
      await search(`index=${idx} | stats count by status | collect index=${idx}.by_status`);
      const r = await search(
        `index=${idx}.by_status sourcetype=stash host=collector | stats sum(count) as n by status`,
      );
      const want = new Map<string, number>();
      for (const a of access) want.set(a.status, (want.get(a.status) ?? 0) + 1);
      assert.deepEqual(new Map(r.rows!.map(([s, n]) => [String(s), Number(n)])), want);
    });

    it(`copies the 404 events of ${idx} with their text and time`, async () => {
      await search(`index=${idx} status=404 | collect index=${idx}.e404 sourcetype=copied`);
      const r = await search(`index=${idx}.e404 sourcetype=copied | table _time message`);
      const own = access.filter((a) => a.status === '404');
      assert.equal(r.rows!.length, own.length);
      const key = (ms: number, m: unknown) => `${ms} ${String(m)}`;
      assert.deepEqual(
        r.rows!.map(([t, m]) => key(Date.parse(t as string), m)).sort(),
        own.map((a) => key(a.ms, a.line)).sort(),
      );
    });
  }
});
