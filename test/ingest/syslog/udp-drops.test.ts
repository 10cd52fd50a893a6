import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyslog } from '../../../src/ingest/syslog/listener.js';
import { DROPS_RECENT_MS, UdpDropWatch } from '../../../src/ingest/syslog/udp-drop-watch.js';
import { addressBytes, parseProcNetUdp, procLocalAddress } from '../../../src/ingest/syslog/udp-drops.js';
import { createApiKey } from '../../helpers/auth.js';
import { searchSelfLog } from '../../helpers/selflog.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import { searchEvents } from '../helpers/e2e.js';
import { RecordingWriter, testContext } from '../helpers/harness.js';

const PROC = existsSync('/proc/net/udp');

describe('the /proc/net/udp row of a socket', () => {
  it('prints an address as the kernel does: 32-bit words in host byte order, the port in hex', () => {
    assert.equal(procLocalAddress('127.0.0.1', 0x8185, true), '0100007F:8185');
    assert.equal(procLocalAddress('127.0.0.1', 514, false), '7F000001:0202');
    assert.equal(procLocalAddress('0.0.0.0', 5514, true), '00000000:158A');
    assert.equal(procLocalAddress('::1', 5514, true), '00000000000000000000000001000000:158A');
    assert.equal(procLocalAddress('::', 5514, true), '00000000000000000000000000000000:158A');
    assert.equal(procLocalAddress('fe80::1%eth0', 1, false), 'FE800000000000000000000000000001:0001');
    assert.equal(procLocalAddress('::ffff:127.0.0.1', 1, true), '0000000000000000FFFF00000100007F:0001');
  });

  it('refuses what is not an address', () => {
    for (const a of ['localhost', '1.2.3', '1::2::3', '300.1.1.1', '1:2:3:4:5:6:7:8:9'])
      assert.equal(addressBytes(a), undefined, a);
  });

  it('reads local address, inode and drops from the table', () => {
    const text =
      '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n' +
      ' 3346: 0100007F:8185 00000000:0000 07 00000000:00000000 00:00000000 00000000  1000        0 221942 2 0000000008d25886 1991\n';
    assert.deepEqual(parseProcNetUdp(text), [{ local: '0100007F:8185', inode: 221942, drops: 1991 }]);
  });
});

describe('reports of kernel drops', () => {
  it('reports each growth once, and shows a problem until DROPS_RECENT_MS after the last one', async () => {
    let drops = 0;
    let now = Date.parse('2026-11-26T10:00:00Z');
    const records: Record<string, unknown>[] = [];
    const selflog = { service: (_e: string, d: Record<string, unknown>) => void records.push(d) };
    const w = new UdpDropWatch(
      { read: async () => drops },
      { listen: '0.0.0.0:5514', recvBufferBytes: 8192, selflog, now: () => now },
    );
    await w.check();
    assert.deepEqual([records, w.problems()], [[], []], 'no drops, nothing told');
    drops = 5;
    await w.check();
    await w.check();
    now += 60_000;
    drops = 7;
    await w.check();
    assert.deepEqual(records, [
      { dropped: 5, total: 5, listen: '0.0.0.0:5514', recv_buffer_bytes: 8192 },
      { dropped: 2, total: 7, listen: '0.0.0.0:5514', recv_buffer_bytes: 8192 },
    ]);
    const [p] = w.problems();
    assert.deepEqual([p.kind, p.since, p.count], ['syslog_dropped', '2026-11-26T10:00:00.000Z', 2]);
    assert.match(p.message, /^the kernel dropped 7 syslog UDP datagrams on 0\.0\.0\.0:5514 /);
    now += DROPS_RECENT_MS + 1;
    assert.deepEqual(w.problems(), [], 'over once drops are no longer recent');
    drops = 8;
    await w.check();
    assert.match(w.problems()[0].message, /dropped 1 syslog UDP datagram on .*\(8 since start/);
  });
});

describe('the syslog UDP receive buffer', () => {
  it(
    'warns once, naming the sysctl, when the kernel grants less than asked',
    { skip: !PROC && 'no /proc here' },
    async () => {
      const rmemMax = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
      const records: [string, Record<string, unknown>][] = [];
      const selflog = { service: (e: string, d: Record<string, unknown>) => void records.push([e, d]) };
      const sys = await startSyslog(testContext(new RecordingWriter(), { selflog }), {
        udp: { host: '127.0.0.1', port: 0 },
        token: 'svi_pinned',
        udpRecvBuffer: rmemMax * 2,
      });
      await sys.close();
      assert.equal(sys.udp?.recvBufferBytes, rmemMax * 2, 'Linux reports twice the rmem_max granted');
      const warnings = records.filter(([e]) => e === 'config_warning');
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0][1].setting, 'SVC_SYSLOG_UDP_RECV_BUFFER');
      assert.match(
        String(warnings[0][1].message),
        new RegExp(`granted ${rmemMax} bytes of the ${rmemMax * 2} .*sysctl -w net\\.core\\.rmem_max=${rmemMax * 2}`),
      );
    },
  );

  it('takes a buffer within the cap without a warning', async () => {
    const records: string[] = [];
    const sys = await startSyslog(
      testContext(new RecordingWriter(), { selflog: { service: (e: string) => void records.push(e) } }),
      { udp: { host: '127.0.0.1', port: 0 }, token: 'svi_pinned', udpRecvBuffer: 65536 },
    );
    await sys.close();
    assert.ok(sys.udp!.recvBufferBytes >= 65536);
    assert.deepEqual(records, []);
  });
});

describe(
  'kernel drops of a syslog UDP burst on a real svc',
  { skip: !PROC && 'no /proc/net/udp here (not Linux): drops are not counted' },
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-syslog-drops-'));
    const lines = join(dataDir, 'burst.txt');
    const SENT = 3000;
    let srv: TestServer;
    let key: string;
    before(async () => {
      srv = await startSyslogServer(
        dataDir,
        { env: 'net', index: 'udp' },
        { SVC_SYSLOG_UDP: '127.0.0.1:0', SVC_SYSLOG_UDP_RECV_BUFFER: '4096' },
      );
      key = await createApiKey(srv, { scopes: ['standard'] });
      writeFileSync(lines, Array.from({ length: SENT }, (_, i) => `burst line ${i}`).join('\n') + '\n');
    });
    after(async () => {
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('counts every datagram: stored + dropped by the kernel == sent, reported in _svclogs and health', async () => {
      assert.deepEqual(await (await fetch(`${srv.url}/api/health`)).json(), { status: 'ok' });
      // logger runs while this process (svc in it) is blocked: nothing reads the socket during the
      // burst, so all but the few datagrams an 8 KiB buffer holds are dropped by the kernel
      execFileSync('logger', [
        '-d',
        '-n',
        '127.0.0.1',
        '-P',
        String(srv.syslog!.udpPort),
        '--rfc3164',
        '-t',
        'burst',
        '-f',
        lines,
      ]);
      await srv.syslog!.checkDrops();
      const dropped = srv.syslog!.udp!.kernelDropped!;
      assert.ok(dropped > SENT / 2, `the kernel dropped ${dropped} of ${SENT}`);

      let events: Awaited<ReturnType<typeof searchEvents>> = [];
      for (let i = 0; i < 200 && events.length < SENT - dropped; i++) {
        events = await searchEvents(srv, key, {
          q: '"burst line"',
          env: 'net',
          index: 'udp',
          from: '2000-01-01T00:00:00Z',
        });
        if (events.length < SENT - dropped) await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(new Set(events.map((e) => e.message)).size, events.length, 'each stored once');
      assert.equal(events.length + dropped, SENT);
      assert.equal(srv.syslog!.stats.dropped, 0, 'svc itself dropped nothing');

      const log = await searchSelfLog(srv, 'event=syslog_dropped', '_svclogs');
      assert.equal(log.events.length, 1, JSON.stringify(log.events));
      const f = log.events[0].fields;
      assert.deepEqual(
        [Number(f.dropped), Number(f.total), f.listen, Number(f.recv_buffer_bytes)],
        [dropped, dropped, `127.0.0.1:${srv.syslog!.udpPort}`, srv.syslog!.udp!.recvBufferBytes],
      );

      const health = (await (await fetch(`${srv.url}/api/health`)).json()) as {
        status: string;
        problems?: { kind: string; message: string; count: number }[];
      };
      assert.equal(health.status, 'degraded');
      const p = health.problems?.find((x) => x.kind === 'syslog_dropped');
      assert.ok(p, JSON.stringify(health));
      assert.match(
        p.message,
        new RegExp(`dropped ${dropped} syslog UDP datagrams on 127\\.0\\.0\\.1:${srv.syslog!.udpPort}.*send over TCP`),
      );
    });
  },
);
