import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApiKey } from '../../helpers/auth.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import { searchEvents } from '../helpers/e2e.js';

const run = promisify(execFile);

describe('util-linux logger against a real svc', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-syslog-'));
  let srv: TestServer;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(
      dataDir,
      { env: 'net', index: 'syslog' },
      { SVC_SYSLOG_UDP: '127.0.0.1:0', SVC_SYSLOG_TCP: '127.0.0.1:0' },
    );
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores RFC 5424 and 3164 over UDP and TCP, LF and octet-counted, found by search', async () => {
    const cases: [string, string[]][] = [
      ['udp5424', ['-d', '--rfc5424']],
      ['udp3164', ['-d', '--rfc3164']],
      ['tcp5424', ['-T', '--rfc5424']],
      ['tcp3164', ['-T', '--rfc3164']],
      ['tcp5424oc', ['-T', '--rfc5424', '--octet-count']],
      ['tcp3164oc', ['-T', '--rfc3164', '--octet-count']],
    ];
    const t0 = Date.now();
    for (const [name, flags] of cases) {
      const port = flags.includes('-d') ? srv.syslog!.udpPort : srv.syslog!.tcpPort;
      const extra = flags.includes('--rfc5424')
        ? ['--sd-id', 'req@32473', '--sd-param', `case="${name}"`, '--msgid', 'M1']
        : [];
      await run('logger', [
        '-n',
        '127.0.0.1',
        '-P',
        String(port),
        ...flags,
        ...extra,
        '-t',
        'payments',
        '-p',
        'auth.warning',
        `syslog e2e ${name}`,
      ]);
    }
    const range = { from: new Date(t0 - 2000).toISOString(), to: new Date(Date.now() + 2000).toISOString() };
    let events: Awaited<ReturnType<typeof searchEvents>> = [];
    for (let i = 0; i < 100 && events.length < cases.length; i++) {
      events = await searchEvents(srv, key, { q: '"syslog e2e"', env: 'net', index: 'syslog', ...range });
      if (events.length < cases.length) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(events.map((e) => e.message.split(' ').pop()).sort(), cases.map(([n]) => n).sort());
    for (const ev of events) {
      assert.equal(ev.env, 'net');
      assert.equal(ev.index, 'syslog');
      assert.equal(ev.source, 'payments');
      assert.equal(ev.sourcetype, 'syslog');
      assert.equal(ev.fields.facility, 'auth');
      assert.equal(ev.fields.severity, 'warning');
      const name = ev.message.split(' ').pop()!;
      if (name.includes('5424')) {
        assert.equal(ev.fields['req@32473.case'], name);
        assert.equal(ev.fields.msgid, 'M1');
      }
    }
  });
});
