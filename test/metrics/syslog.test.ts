import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../helpers/server.js';
import { startSyslogServer } from '../helpers/syslog.js';
import { sample, scrape } from '../helpers/metrics.js';

describe('GET /metrics counts syslog under its own protocol', () => {
  let srv: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-metrics-syslog-'));
    srv = await startSyslogServer(
      dir,
      { env: 'net', index: 'syslog' },
      { SVC_METRICS_LISTEN: '127.0.0.1:0', SVC_SYSLOG_TCP: '127.0.0.1:0' },
    );
  });
  after(async () => {
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the messages a TCP sender wrote and their bytes, in the env of the token', async () => {
    const frames = ['<13>Nov 27 12:00:00 host1 app: one', '<13>Nov 27 12:00:01 host1 app: two'].map((l) => `${l}\n`);
    await new Promise<void>((resolve, reject) => {
      const s = connect(srv.syslog!.tcpPort!, '127.0.0.1', () => s.end(frames.join('')));
      s.on('close', () => resolve());
      s.on('error', reject);
    });
    // the events are stored once the connection's batch is written: wait for the count, no timing
    let text = '';
    for (let i = 0; i < 100 && sample(text, 'svc_ingest_events_total', { protocol: 'syslog', env: 'net' }) < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = await scrape(srv);
    }
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'syslog', env: 'net' }), 2);
    assert.equal(
      sample(text, 'svc_ingest_bytes_total', { protocol: 'syslog', env: 'net' }),
      Buffer.byteLength(frames.join('')),
    );
    assert.equal(sample(text, 'svc_ingest_events_total', { protocol: 'native', env: 'net' }), 0);
  });
});
