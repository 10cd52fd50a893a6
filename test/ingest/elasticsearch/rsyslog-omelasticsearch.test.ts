import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startE2E, E2E_ENV, type E2E } from '../helpers/e2e.js';
import {
  compareLines,
  exportAll,
  omelasticsearchConf,
  realLines,
  rsyslogSkipReason,
  startRsyslog,
  waitForEvents,
  writeLines,
} from '../../helpers/rsyslog.js';

/**
 * Debian's rsyslogd ships a real log file to svc's `/_bulk` with omelasticsearch while svc's writer
 * queue is full, so items are answered 429: with `retryfailures` and the retry ruleset of README's
 * configuration, rsyslog resubmits them and every line is stored exactly once, and because the
 * document is built in `$!` (a subtree template) the retried items keep their host and program.
 */

const skip = rsyslogSkipReason(['imfile', 'omelasticsearch', 'impstats']);
const LINES = realLines('loghub/Linux/Linux_2k.log');
const reason = skip ?? (!LINES ? 'SVC_REAL_DATA has no loghub Linux log' : undefined);
if (reason) console.log(`rsyslog omelasticsearch test skipped: ${reason}`);

/** The last impstats record of omelasticsearch (its counters), from rsyslog's stats file. */
function esStats(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  let last: Record<string, number> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const json = line.slice(line.indexOf('{'));
    if (!json.includes('"omelasticsearch"')) continue;
    try {
      last = JSON.parse(json) as Record<string, number>;
    } catch {
      // a line still being written
    }
  }
  return last;
}

describe('rsyslogd omelasticsearch against /_bulk answering 429', { skip: reason }, () => {
  let e: E2E;
  let filler: Promise<Response>;
  const work = mkdtempSync(join(tmpdir(), 'svc-rsyslog-es-'));
  before(async () => {
    e = await startE2E({ SVC_BLOCK_QUEUE_CAP: '5', SVC_TEST_HOLD_WRITER: '1' });
    // a native ingest (which waits for room) fills the held queue: from then on every /_bulk item is 429
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ message: `filler ${i}` })).join('\n');
    filler = fetch(`${e.srv.url}/api/ingest?index=filler`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/x-ndjson' },
      body: lines,
    });
    // (or, behind self-log events, waits for room: either way a write that may not wait is refused;
    // the test waits below for rsyslog's own count of 429 items)
    const start = Date.now();
    while (e.srv.deps.writer.queueDepth().queued < 5 && Date.now() - start < 1000)
      await new Promise((r) => setTimeout(r, 10));
  });
  after(async () => {
    e?.srv.deps.storage.releaseWriter();
    await filler;
    await e?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('retries the 429 items until each line is stored exactly once, with host, program and time', async () => {
    const file = join(work, 'linux.log');
    mkdirSync(work, { recursive: true });
    writeLines(file, LINES!);
    const stats = join(work, 'stats.json');
    const startedMs = Date.now();
    const conf =
      omelasticsearchConf(work, {
        host: 'rs-es',
        file,
        tag: 'linux',
        url: e.srv.url,
        token: e.token,
        index: 'rsyslog',
      }) + `module(load="impstats" interval="1" format="json" log.syslog="off" log.file="${stats}")\n`;
    const daemon = startRsyslog(work, conf);
    try {
      // hold until rsyslog has seen 429 items (bulkrejection), then let the writer drain
      while (!(esStats(stats)['response.bulkrejection'] > 0)) {
        if (daemon.child.exitCode !== null) assert.fail(`rsyslogd exited:\n${daemon.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      e.srv.deps.storage.releaseWriter();
      const stored = await waitForEvents(
        () => exportAll(e.srv.url, e.searchKey, { q: '*', env: E2E_ENV, index: 'rsyslog' }),
        LINES!.length,
      );
      const doneMs = Date.now();
      const s = esStats(stats);
      const { missing, duplicates, unexpected } = compareLines(
        LINES!,
        stored.map((x) => x.message),
      );
      console.log(
        `rsyslog omelasticsearch: sent ${LINES!.length}, stored ${stored.length}, duplicates ${duplicates}; items answered 429 ${s['response.bulkrejection']}, stored ${s['response.success']}`,
      );
      assert.deepEqual(
        { missing: missing.slice(0, 5), unexpected: unexpected.slice(0, 5), duplicates },
        { missing: [], unexpected: [], duplicates: 0 },
      );
      assert.equal(stored.length, LINES!.length);
      for (const x of stored) {
        assert.equal(x.host, 'rs-es');
        assert.equal(x.source, 'linux');
        const t = Date.parse(x.time);
        assert.ok(t >= startedMs && t <= doneMs, `time ${x.time} outside the run`);
      }
    } finally {
      await daemon.stop();
    }
  });
});
