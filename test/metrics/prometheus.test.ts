import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createIngestToken } from '../helpers/auth.js';
import { freePort } from '../helpers/ports.js';
import { scrape } from '../helpers/metrics.js';

/**
 * Debian's real Prometheus server (package `prometheus`, installed by .ci/run) scrapes svc's
 * metrics listener, and its query API must see the ingest counter equal to what the test sent;
 * `promtool check metrics` from the same package lints the scrape. Run in the foreground with the
 * test's own configuration and a temporary TSDB: a system Prometheus is left alone.
 */

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const skip =
  existsSync(PROMETHEUS) && existsSync(PROMTOOL)
    ? false
    : `${PROMETHEUS} is not installed (Debian package prometheus; .ci/run installs it)`;
if (skip) console.log(`# skipped: ${skip}`);

const EVENTS = 37;

describe('Prometheus scrapes svc', { skip }, () => {
  let srv: TestServer;
  let dir: string;
  let prom: ChildProcess | undefined;
  let promUrl: string;
  let promLog = '';
  before(async () => {
    srv = await startTestServer({ SVC_METRICS_LISTEN: '127.0.0.1:0' });
    dir = mkdtempSync(join(tmpdir(), 'svc-prometheus-'));
    const target = new URL(srv.metricsUrl!).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: svc\n    static_configs:\n      - targets: ['${target}']\n`,
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prom = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prom.stderr!.on('data', (d: Buffer) => (promLog = (promLog + d.toString()).slice(-4000)));
  });
  after(async () => {
    if (prom && prom.exitCode === null) {
      const exited = new Promise((r) => prom!.once('exit', r));
      prom.kill('SIGTERM');
      await exited;
    }
    await srv?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("finds svc_ingest_events_total equal to the events sent, through Prometheus' query API", async () => {
    const token = await createIngestToken(srv, { env: 'default' });
    const body = Array.from({ length: EVENTS }, (_, i) => JSON.stringify({ message: `event ${i}` })).join('\n');
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200);
    const query = encodeURIComponent('svc_ingest_events_total{job="svc",protocol="native",env="default"}');
    // Prometheus scrapes every second: ask until a scrape after the ingest has been stored
    let seen: string | undefined;
    for (let i = 0; i < 200 && seen !== String(EVENTS); i++) {
      await new Promise((r) => setTimeout(r, 100));
      const answer = await fetch(`${promUrl}/api/v1/query?query=${query}`).then(
        (r) => r.json() as Promise<{ status: string; data: { result: { value: [number, string] }[] } }>,
        () => undefined, // not listening yet
      );
      if (answer?.status === 'success') seen = answer.data.result[0]?.value[1];
    }
    assert.equal(seen, String(EVENTS), `Prometheus saw ${seen}; its log: ${promLog}`);
  });

  it('passes promtool check metrics', async () => {
    const text = await scrape(srv);
    const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(r.status, 0, `promtool: ${r.stdout}${r.stderr}`);
  });
});
