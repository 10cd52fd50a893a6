import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';
import {
  compareLines,
  exportAll,
  imfileConf,
  omelasticsearchConf,
  realLines,
  rsyslogSkipReason,
  startRsyslog,
  waitForEvents,
  writeLines,
  type RsyslogDaemon,
  type StoredEvent,
} from '../helpers/rsyslog.js';
import { freePort } from '../helpers/ports.js';

/**
 * Outage: two rsyslogd, one forwarding over TCP (omfwd, RFC 5424) and one to `/_bulk`
 * (omelasticsearch), each with a disk-assisted action queue, stream real lines to a svc process that
 * is killed with SIGKILL mid-stream and restarted on the same data dir and ports. rsyslog keeps the
 * unsent lines in its queue and sends them once svc is back. `/_bulk` answers after the fsync: every
 * line is found, and a request in flight at the kill may come twice (at most one batch; counted).
 * Plain TCP syslog has no acknowledgement: the lines svc had read or its socket held when it died
 * are lost without rsyslog knowing (counted, printed, bounded); all others are found.
 */

const ENV = 'outage';
const skip = rsyslogSkipReason(['imfile', 'omelasticsearch']);
const LINUX = realLines('loghub/Linux/Linux_2k.log');
const OPENSSH = realLines('loghub/OpenSSH/OpenSSH_2k.log');
const reason = skip ?? (!LINUX || !OPENSSH ? 'SVC_REAL_DATA has no loghub Linux/OpenSSH logs' : undefined);
if (reason) console.log(`rsyslog kill -9 test skipped: ${reason}`);
/**
 * Most lines plain TCP may lose or repeat at the kill: those svc had read but not yet written and
 * those in its socket, which grow with how slow the writer is on a loaded machine (300 of 4,000
 * seen); a broken outage queue would lose everything after the kill instead.
 */
const TCP_LOST_ALLOWED = 1000;
const TCP_DUPLICATES_ALLOWED = 1000;
/** Lines per _bulk request (the test's queue.dequeueBatchSize). */
const ES_BATCH = 100;

/** Line numbers as runs of consecutive ones (`a-b, c`), for the printed summary. */
function runs(lines: number[]): string {
  const n = [...lines].sort((x, y) => x - y);
  const out: string[] = [];
  for (let i = 0; i < n.length;) {
    let j = i;
    while (j + 1 < n.length && n[j + 1] === n[j] + 1) j++;
    out.push(i === j ? `${n[i]}` : `${n[i]}-${n[j]}`);
    i = j + 1;
  }
  return out.length ? out.join(', ') : 'none';
}

/** The line numbers (in `sent`) of the copies beyond the first. */
function duplicated(sent: string[], stored: StoredEvent[]): number[] {
  const at = new Map(sent.map((l, i) => [l, i]));
  const seen = new Set<string>();
  const out: number[] = [];
  for (const e of stored) {
    if (seen.has(e.message)) out.push(at.get(e.message)!);
    seen.add(e.message);
  }
  return out;
}

describe('SIGKILL of svc while rsyslog streams to it with a disk-assisted queue', { skip: reason }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-rsyslog-kill9-'));
  const work = mkdtempSync(join(tmpdir(), 'svc-rsyslogd-kill9-'));
  let srv: ProcessServer | undefined;
  const daemons: RsyslogDaemon[] = [];
  after(async () => {
    for (const d of daemons) await d.stop();
    await srv?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('finds every line after the restart: /_bulk exactly once, TCP with its duplicates counted', async () => {
    const [httpPort, syslogPort] = [await freePort(), await freePort()];
    const base = {
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_LISTEN: `127.0.0.1:${httpPort}`,
    };
    // the syslog listener needs its token before it starts: create it on a first run
    const setup = await startServerProcess(base);
    await createEnv(setup, ENV);
    const syslogToken = await createIngestToken(setup, { env: ENV, index: 'tcp' });
    const esToken = await createIngestToken(setup, { env: ENV });
    const key = await createApiKey(setup, { scopes: ['standard'] });
    await setup.stop();
    const env = { ...base, SVC_SYSLOG_TCP: `127.0.0.1:${syslogPort}`, SVC_SYSLOG_TOKEN: syslogToken };
    srv = await startServerProcess(env);
    const url = srv.url;

    // a disk-assisted queue (queue.filename) paced to ~500 lines/s, so the kill lands mid-stream
    const queue = (name: string, batch: number, slowdownUs: number) =>
      `queue.type="LinkedList" queue.filename="${name}" queue.saveOnShutdown="on" queue.dequeueBatchSize="${batch}" queue.dequeueSlowdown="${slowdownUs}" action.resumeInterval="1"`;
    const tcpDir = join(work, 'tcp');
    const esDir = join(work, 'es');
    for (const d of [tcpDir, esDir]) mkdirSync(d);
    const sent = [...LINUX!, ...OPENSSH!];
    writeLines(join(tcpDir, 'lines.log'), sent);
    writeLines(join(esDir, 'lines.log'), sent);
    const startedMs = Date.now();
    daemons.push(
      startRsyslog(
        tcpDir,
        `${imfileConf(tcpDir, { host: 'rs-kill-tcp', file: join(tcpDir, 'lines.log'), tag: 'linux', ruleset: 'fwd' })}ruleset(name="fwd") {
  action(type="omfwd" target="127.0.0.1" port="${syslogPort}" protocol="tcp" template="RSYSLOG_SyslogProtocol23Format" TCP_Framing="octet-counted" action.resumeRetryCount="-1" ${queue('svc_fwd', 10, 20_000)})
}
`,
      ),
    );
    daemons.push(
      startRsyslog(
        esDir,
        omelasticsearchConf(esDir, {
          host: 'rs-kill-es',
          file: join(esDir, 'lines.log'),
          tag: 'linux',
          url,
          token: esToken,
          index: 'es',
          queue: queue('svc_es', ES_BATCH, 100_000),
        }),
      ),
    );

    const count = (index: string) => exportAll(url, key, { q: '*', env: ENV, index }).then((r) => r.length);
    // kill once both have stored a part of the stream and most of it is still to come
    let atKill: number[];
    for (;;) {
      atKill = [await count('tcp'), await count('es')];
      if (atKill[0] >= 400 && atKill[1] >= 400) break;
      for (const d of daemons) if (d.child.exitCode !== null) assert.fail(`rsyslogd exited:\n${d.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    srv.child.kill('SIGKILL');
    await srv.stop();
    console.log(`rsyslog kill -9: svc killed with tcp ${atKill[0]}, es ${atKill[1]} of ${sent.length} lines stored`);
    // let rsyslog find svc gone and queue up (to its disk queue past the high watermark)
    await new Promise((r) => setTimeout(r, 2000));
    srv = await startServerProcess(env);
    console.log(`rsyslog kill -9: svc back after ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);

    // /_bulk first: it must reach every line; TCP stops growing short of the lines lost in flight
    const es = await waitForEvents(() => exportAll(srv!.url, key, { q: '*', env: ENV, index: 'es' }), sent.length);
    const tcp = await waitForEvents(
      () => exportAll(srv!.url, key, { q: '*', env: ENV, index: 'tcp' }),
      sent.length,
      10_000,
    );
    const doneMs = Date.now();
    const fields = (stored: StoredEvent[], host: string) => {
      for (const e of stored) {
        assert.equal(e.host, host);
        assert.equal(e.source, 'linux');
        const t = Date.parse(e.time);
        assert.ok(t >= startedMs && t <= doneMs, `time ${e.time} outside the run`);
      }
    };

    const b = compareLines(
      sent,
      es.map((e) => e.message),
    );
    const t = compareLines(
      sent,
      tcp.map((e) => e.message),
    );
    const lost = t.missing.map((l) => sent.indexOf(l));
    console.log(
      `rsyslog kill -9 omelasticsearch: sent ${sent.length}, stored ${es.length}, missing ${b.missing.length}, duplicates ${b.duplicates} (lines ${runs(duplicated(sent, es))})`,
    );
    console.log(
      `rsyslog kill -9 omfwd tcp 5424: sent ${sent.length}, stored ${tcp.length}, missing ${lost.length} (lines ${runs(lost)}), duplicates ${t.duplicates} (lines ${runs(duplicated(sent, tcp))})`,
    );

    assert.deepEqual({ missing: b.missing.slice(0, 5), unexpected: b.unexpected }, { missing: [], unexpected: [] });
    // svc answers a _bulk request after its fsync; one in flight at the kill may be stored (written,
    // replayed) without rsyslog hearing so, and rsyslog sends it again: at most one batch twice
    assert.ok(b.duplicates <= ES_BATCH, `${b.duplicates} duplicates`);
    fields(es, 'rs-kill-es');

    assert.deepEqual(t.unexpected, []);
    // plain TCP has no acknowledgement: what svc had read or the kernel held when it died is gone,
    // and rsyslog counts it as sent (a fraction of a second of the stream); everything else, the
    // whole outage included, is stored: rsyslog's queue kept it
    assert.ok(lost.length <= TCP_LOST_ALLOWED, `${lost.length} lines lost`);
    assert.ok(t.duplicates <= TCP_DUPLICATES_ALLOWED, `${t.duplicates} duplicates`);
    fields(tcp, 'rs-kill-tcp');
  });
});
