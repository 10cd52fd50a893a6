import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { startSyslog, type SyslogListeners } from '../../../src/ingest/syslog/listener.js';
import { RecordingWriter, testContext } from '../helpers/harness.js';

const run = promisify(execFile);

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('syslog listeners with util-linux logger', () => {
  const writer = new RecordingWriter();
  let sys: SyslogListeners;
  before(async () => {
    sys = await startSyslog(testContext(writer), {
      udp: { host: '127.0.0.1', port: 0 },
      tcp: { host: '127.0.0.1', port: 0 },
      token: 'svi_pinned',
    });
  });
  after(async () => sys.close());

  const cases: [string, string[]][] = [
    ['UDP RFC 5424', ['-d', '--rfc5424']],
    ['UDP RFC 3164', ['-d', '--rfc3164']],
    ['TCP RFC 5424', ['-T', '--rfc5424']],
    ['TCP RFC 3164', ['-T', '--rfc3164']],
    ['TCP RFC 5424 octet-counted', ['-T', '--rfc5424', '--octet-count']],
    ['TCP RFC 3164 octet-counted', ['-T', '--rfc3164', '--octet-count']],
  ];
  for (const [name, flags] of cases) {
    it(`stores a message sent over ${name} in the token's env and index`, async () => {
      const port = flags.includes('-d') ? sys.udpPort : sys.tcpPort;
      const text = `hello ${name} ${Math.random().toString(36).slice(2)}`;
      const before = Date.now();
      await run('logger', ['-n', '127.0.0.1', '-P', String(port), ...flags, '-t', 'myapp', '-p', 'local3.err', text]);
      await waitFor(() => writer.events.some((e) => e.message === text));
      const e = writer.events.find((x) => x.message === text)!;
      assert.equal(e.env, 'prod');
      assert.equal(e.index, 'web');
      assert.equal(e.source, 'myapp');
      assert.equal(e.fields.facility, 'local3');
      assert.equal(e.fields.severity, 'err');
      assert.equal(e.fields.syslog_format, flags.includes('--rfc5424') ? 'rfc5424' : 'rfc3164');
      assert.ok(e.host.length > 0, 'host is set');
      // 3164 has whole seconds only
      assert.ok(
        e.timeUs >= (before - 1000) * 1000 && e.timeUs <= (Date.now() + 1000) * 1000,
        'event time is the send time',
      );
    });
  }

  it('holds a batch while storage cannot write and stores it once it can (nothing dropped)', async () => {
    const failedBefore = sys.stats.failedBatches;
    writer.failStorage = 3;
    const text = `through a full disk ${Math.random().toString(36).slice(2)}`;
    await run('logger', ['-n', '127.0.0.1', '-P', String(sys.tcpPort), '-T', '--rfc5424', '-t', 'disk', text]);
    await waitFor(() => writer.events.some((e) => e.message === text));
    assert.equal(writer.failStorage, 0, 'the writer refused it three times first');
    assert.equal(sys.stats.failedBatches, failedBefore);
  });

  it('keeps serving other senders while one TCP sender is stuck mid-frame', async () => {
    const stuck = connect(sys.tcpPort!, '127.0.0.1');
    await new Promise((r) => stuck.once('connect', r));
    stuck.write('9999 <13>never finished');
    const text = `after the stuck one ${Date.now()}`;
    await run('logger', ['-n', '127.0.0.1', '-P', String(sys.tcpPort), '-T', '--rfc3164', '-t', 'ok', text]);
    await waitFor(() => writer.events.some((e) => e.message === text));
    stuck.destroy();
  });
});
