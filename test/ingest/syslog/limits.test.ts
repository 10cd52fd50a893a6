import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeContext } from '../../../src/events/timestamp.js';
import { parseSyslog } from '../../../src/ingest/syslog/parse.js';
import { createApiKey } from '../../helpers/auth.js';
import { searchSelfLog } from '../../helpers/selflog.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import { searchEvents } from '../helpers/e2e.js';

describe('syslog event time window', () => {
  const ctx = timeContext('UTC', Date.UTC(2026, 10, 22, 12));

  it('takes the arrival time for an RFC 5424 time in year 9999, keeping it as time_original', () => {
    const ev = parseSyslog('<13>1 9999-12-31T23:59:59.999999Z host app - - - far', ctx);
    assert.equal(ev.timeUs, ctx.nowUs);
    assert.equal(ev.fields.time_original, '9999-12-31T23:59:59.999999Z');
  });

  it('keeps a time within the window', () => {
    const ev = parseSyslog('<13>1 2026-11-22T11:00:00Z host app - - - near', ctx);
    assert.equal(ev.timeUs, Date.UTC(2026, 10, 22, 11) * 1000);
    assert.equal(ev.fields.time_original, undefined);
  });
});

describe('syslog frames over the limit on a real svc', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-syslog-limits-'));
  let srv: TestServer;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(dataDir, { env: 'net', index: 'big' }, { SVC_SYSLOG_TCP: '127.0.0.1:0' });
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('cuts a 10 MB line and a 10 MB counted frame to 64 KiB, keeps the neighbours, and counts and reports them', async () => {
    const huge = '<13>Nov 22 12:00:00 host app: huge ' + 'z'.repeat(10 * 1024 * 1024);
    const framed = Buffer.from(huge.replace('huge', 'framed'));
    const body = Buffer.concat([
      Buffer.from('<13>Nov 22 12:00:00 host app: before\n'),
      Buffer.from(huge + '\n'),
      Buffer.from(`${framed.length} `),
      framed,
      Buffer.from('<13>Nov 22 12:00:00 host app: after\n'),
    ]);
    await new Promise<void>((resolve, reject) => {
      const s = connect(srv.syslog!.tcpPort!, '127.0.0.1', () => s.end(body));
      s.on('close', () => resolve());
      s.on('error', reject);
    });
    let events: Awaited<ReturnType<typeof searchEvents>> = [];
    for (let i = 0; i < 100 && events.length < 4; i++) {
      events = await searchEvents(srv, key, { q: '*', env: 'net', index: 'big', from: '2000-01-01T00:00:00Z' });
      if (events.length < 4) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(events.map((e) => e.message.split(' ')[0]).sort(), ['after', 'before', 'framed', 'huge']);
    for (const e of events) assert.ok(Buffer.byteLength(e.message) <= 64 * 1024);
    assert.equal(srv.syslog!.stats.oversized, 2);
    // reported at once, then at most once a minute: the first record counts the first cut frame
    const log = await searchSelfLog(srv, 'event=syslog_frames', '_svclogs');
    assert.ok(Number(log.events[0]?.fields.oversized) >= 1, JSON.stringify(log.events));
  });
});
