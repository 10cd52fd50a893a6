import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiKey } from '../../helpers/auth.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import { compareLines, exportAll, realLines, waitForEvents, writeLines } from '../../helpers/rsyslog.js';

/**
 * Debian's syslog-ng 3.38 (unpacked beside rsyslog by test/fixtures/syslog-ng/setup.sh: the two
 * packages conflict) reads a real log file and forwards it with syslog() (RFC 5424, octet-counted
 * TCP) and network() (RFC 3164, LF-framed TCP): every line once, with its host, program and time.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SYSLOG_NG = join(resolve(ROOT, process.env.SVC_TEST_SYSLOG_NG_DIR ?? '.cache/syslog-ng'), 'syslog-ng');
const ENV = 'sng';
const INDEX = 'syslog';
const LINUX = realLines('loghub/Linux/Linux_2k.log');
const reason = !existsSync(SYSLOG_NG)
  ? `${SYSLOG_NG} is absent (bash test/fixtures/syslog-ng/setup.sh unpacks it; .ci/run does)`
  : !LINUX
    ? 'SVC_REAL_DATA has no loghub Linux log'
    : undefined;
if (reason) console.log(`syslog-ng daemon tests skipped: ${reason}`);

describe('syslog-ng forwarding to the syslog listeners', { skip: reason }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-syslog-ng-'));
  const work = mkdtempSync(join(tmpdir(), 'svc-syslog-ngd-'));
  let srv: TestServer;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(dataDir, { env: ENV, index: INDEX }, { SVC_SYSLOG_TCP: '127.0.0.1:0' });
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  /** One syslog-ng (host `name`) in the foreground, its own control socket, persist and pid files. */
  async function ship(name: string, destination: string, precisionMs: number): Promise<void> {
    const dir = join(work, name);
    mkdirSync(dir);
    const file = join(dir, 'linux.log');
    writeLines(file, LINUX!);
    writeFileSync(
      join(dir, 'syslog-ng.conf'),
      `@version: 3.38
options { stats-freq(0); };
source s_file { file("${file}" flags(no-parse) program-override("linux") host-override("${name}") follow-freq(1)); };
destination d_svc { ${destination} };
log { source(s_file); destination(d_svc); };
`,
    );
    const startedMs = Date.now();
    const child = spawn(
      SYSLOG_NG,
      [
        '-F',
        '--no-caps',
        '-f',
        join(dir, 'syslog-ng.conf'),
        `--control=${dir}/ctl`,
        `--persist-file=${dir}/persist`,
        `--pidfile=${dir}/pid`,
      ],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TZ: 'UTC' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    try {
      const stored = await waitForEvents(() => {
        if (child.exitCode !== null) throw new Error(`syslog-ng exited:\n${out}`);
        return exportAll(srv.url, key, { q: `host="${name}"`, env: ENV, index: INDEX });
      }, LINUX!.length);
      const doneMs = Date.now();
      const { missing, duplicates, unexpected } = compareLines(
        LINUX!,
        stored.map((e) => e.message),
      );
      console.log(`syslog-ng ${name}: sent ${LINUX!.length}, stored ${stored.length}, duplicates ${duplicates}`);
      assert.deepEqual(
        { missing: missing.slice(0, 5), unexpected: unexpected.slice(0, 5), duplicates },
        { missing: [], unexpected: [], duplicates: 0 },
        out,
      );
      for (const e of stored) {
        assert.equal(e.host, name);
        assert.equal(e.source, 'linux');
        const t = Date.parse(e.time);
        assert.ok(t >= startedMs - precisionMs && t <= doneMs, `time ${e.time} outside the run`);
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    }
  }

  it('stores every line once with syslog() over TCP (RFC 5424, octet-counted)', async () => {
    // frac-digits: syslog-ng's time has whole seconds unless asked for more
    await ship('sng-syslog', `syslog("127.0.0.1" transport("tcp") port(${srv.syslog!.tcpPort}) frac-digits(3));`, 0);
  });

  it('stores every line once with network() over TCP (RFC 3164, LF-framed)', async () => {
    // with frac-digits the 3164 time is `Mmm dd hh:mm:ss.123`: the fraction must not become the host
    await ship('sng-network', `network("127.0.0.1" transport("tcp") port(${srv.syslog!.tcpPort}) frac-digits(3));`, 0);
  });
});
