import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../../helpers/auth.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import {
  compareLines,
  exportAll,
  imfileConf,
  realLines,
  rsyslogSkipReason,
  startRsyslog,
  waitForEvents,
  writeLines,
  type StoredEvent,
} from '../../helpers/rsyslog.js';

/**
 * Debian's rsyslogd forwards a real log file (read by imfile from the test's copy) to svc's syslog
 * listeners with omfwd, as README's rsyslog section configures it: every line is stored exactly
 * once, as its message, with rsyslog's host, the imfile tag as app (source), and the time rsyslog
 * gave it. One svc serves the three cases; each case is one rsyslogd with its own host name.
 */

const ENV = 'rsys';
const INDEX = 'syslog';
const skip = rsyslogSkipReason(['imfile']);
const LINUX = realLines('loghub/Linux/Linux_2k.log');
const OPENSSH = realLines('loghub/OpenSSH/OpenSSH_2k.log');
const reason = skip ?? (!LINUX || !OPENSSH ? 'SVC_REAL_DATA has no loghub Linux/OpenSSH logs' : undefined);
if (reason) console.log(`rsyslog daemon tests skipped: ${reason}`);

interface Run {
  host: string;
  sent: string[];
  stored: StoredEvent[];
  startedMs: number;
  doneMs: number;
}

describe('rsyslogd omfwd to the syslog listeners', { skip: reason }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-rsyslog-'));
  const work = mkdtempSync(join(tmpdir(), 'svc-rsyslogd-'));
  let srv: TestServer;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(
      dataDir,
      { env: ENV, index: INDEX },
      { SVC_SYSLOG_UDP: '127.0.0.1:0', SVC_SYSLOG_TCP: '127.0.0.1:0' },
    );
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs one rsyslogd (host `name`) over `lines` with `action`, waits for svc to hold them all. */
  async function ship(name: string, lines: string[], action: string): Promise<Run> {
    const dir = join(work, name);
    const file = join(dir, 'linux.log');
    mkdirSync(dir);
    writeLines(file, lines);
    const startedMs = Date.now();
    const daemon = startRsyslog(
      dir,
      `${imfileConf(dir, { host: name, file, tag: 'linux', ruleset: 'fwd' })}ruleset(name="fwd") {\n  ${action}\n}\n`,
    );
    try {
      const stored = await waitForEvents(
        () => exportAll(srv.url, key, { q: `host="${name}"`, env: ENV, index: INDEX }),
        lines.length,
      );
      return { host: name, sent: lines, stored, startedMs, doneMs: Date.now() };
    } finally {
      await daemon.stop();
      if (daemon.output().includes('error')) console.log(`rsyslogd ${name} said:\n${daemon.output()}`);
    }
  }

  /** Every line exactly once, host, app, facility/severity and a time from this run (to `precisionMs`). */
  function check(label: string, run: Run, precisionMs: number): void {
    const { missing, duplicates, unexpected } = compareLines(
      run.sent,
      run.stored.map((e) => e.message),
    );
    console.log(`rsyslog ${label}: sent ${run.sent.length}, stored ${run.stored.length}, duplicates ${duplicates}`);
    assert.deepEqual(
      { missing: missing.slice(0, 5), unexpected: unexpected.slice(0, 5), duplicates },
      { missing: [], unexpected: [], duplicates: 0 },
    );
    assert.equal(run.stored.length, run.sent.length);
    for (const e of run.stored) {
      assert.equal(e.host, run.host);
      assert.equal(e.source, 'linux');
      assert.equal(e.fields.facility, 'local0');
      assert.equal(e.fields.severity, 'info');
      const t = Date.parse(e.time);
      assert.ok(t >= run.startedMs - precisionMs && t <= run.doneMs, `time ${e.time} outside the run`);
    }
  }

  it('stores every line once over TCP in RFC 5424 (RSYSLOG_SyslogProtocol23Format), with a sub-second time', async () => {
    const run = await ship(
      'rs-tcp5424',
      LINUX!,
      'action(type="omfwd" target="127.0.0.1" port="' +
        srv.syslog!.tcpPort +
        '" protocol="tcp" template="RSYSLOG_SyslogProtocol23Format" TCP_Framing="octet-counted")',
    );
    check('omfwd tcp 5424', run, 0);
    // RFC 5424 carries the fraction: not every event may fall on a whole second
    assert.ok(
      run.stored.some((e) => Date.parse(e.time) % 1000 !== 0),
      'no event kept a fraction of a second',
    );
  });

  it('stores every line once over TCP in the default RSYSLOG_TraditionalForwardFormat (RFC 3164, whole seconds)', async () => {
    const run = await ship(
      'rs-tcp3164',
      OPENSSH!,
      `action(type="omfwd" target="127.0.0.1" port="${srv.syslog!.tcpPort}" protocol="tcp")`,
    );
    check('omfwd tcp 3164', run, 1000);
    assert.ok(
      run.stored.every((e) => Date.parse(e.time) % 1000 === 0),
      'RFC 3164 has no fraction of a second',
    );
  });

  it('stores every line once over UDP when rsyslog paces its sends', async () => {
    // UDP cannot push back: the action queue sends one datagram per dequeue, 2 ms apart (≤ 500/s),
    // well below what svc drains, so the kernel's receive buffer never overflows
    const pacing = 'queue.type="LinkedList" queue.dequeueBatchSize="1" queue.dequeueSlowdown="2000"';
    const run = await ship(
      'rs-udp',
      LINUX!,
      `action(type="omfwd" target="127.0.0.1" port="${srv.syslog!.udpPort}" protocol="udp" template="RSYSLOG_SyslogProtocol23Format" ${pacing})`,
    );
    check('omfwd udp 5424', run, 0);
  });
});
