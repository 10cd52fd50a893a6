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
  omrelpAction,
  realLines,
  rsyslogSkipReason,
  startRsyslog,
  waitForEvents,
  writeLines,
} from '../../helpers/rsyslog.js';

/**
 * Debian's rsyslogd (with rsyslog-relp) forwards a real log file to svc's RELP listener with
 * omrelp, as docs/shippers.md configures it: every line stored exactly once, with rsyslog's host,
 * the imfile tag as app, and the time rsyslog gave it.
 */

const ENV = 'relp';
const INDEX = 'syslog';
const skip = rsyslogSkipReason(['imfile', 'omrelp']);
const LINUX = realLines('loghub/Linux/Linux_2k.log');
const reason = skip ?? (!LINUX ? 'SVC_REAL_DATA has no loghub Linux log' : undefined);
if (reason) console.log(`rsyslog omrelp test skipped: ${reason}`);

describe('rsyslogd omrelp to the RELP listener', { skip: reason }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relp-'));
  const work = mkdtempSync(join(tmpdir(), 'svc-rsyslogd-relp-'));
  let srv: TestServer;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(dataDir, { env: ENV, index: INDEX }, { SVC_SYSLOG_RELP: '127.0.0.1:0' });
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('stores every line exactly once with host, app and a sub-second time', async () => {
    const host = 'rs-relp';
    const file = join(work, 'linux.log');
    mkdirSync(join(work, 'work'), { recursive: true });
    writeLines(file, LINUX!);
    const startedMs = Date.now();
    const daemon = startRsyslog(
      work,
      `${imfileConf(work, { host, file, tag: 'linux', ruleset: 'fwd' })}module(load="omrelp")
ruleset(name="fwd") {
  ${omrelpAction({ port: srv.syslog!.relpPort! })}
}
`,
    );
    let stored;
    try {
      stored = await waitForEvents(() => exportAll(srv.url, key, { q: '*', env: ENV, index: INDEX }), LINUX!.length);
    } finally {
      await daemon.stop();
      if (daemon.output().includes('error')) console.log(`rsyslogd said:\n${daemon.output()}`);
    }
    const doneMs = Date.now();
    const { missing, duplicates, unexpected } = compareLines(
      LINUX!,
      stored.map((e) => e.message),
    );
    console.log(
      `rsyslog omrelp: sent ${LINUX!.length}, stored ${stored.length}, missing ${missing.length}, duplicates ${duplicates}`,
    );
    assert.deepEqual(
      { missing: missing.slice(0, 5), unexpected: unexpected.slice(0, 5), duplicates },
      { missing: [], unexpected: [], duplicates: 0 },
    );
    assert.equal(stored.length, LINUX!.length);
    for (const e of stored) {
      assert.equal(e.host, host);
      assert.equal(e.source, 'linux');
      assert.equal(e.fields.facility, 'local0');
      assert.equal(e.fields.severity, 'info');
      const t = Date.parse(e.time);
      assert.ok(t >= startedMs && t <= doneMs, `time ${e.time} outside the run`);
    }
    assert.ok(
      stored.some((e) => Date.parse(e.time) % 1000 !== 0),
      'no event kept a fraction of a second',
    );
  });
});
