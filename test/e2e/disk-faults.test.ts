import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServerProcessToExit, startServerProcess, type ProcessServer } from '../helpers/process.js';
import { TEST_ADMIN_PASSWORD, adminToken, createIngestToken } from '../helpers/auth.js';

/**
 * A disk that fills up and a disk that turns read-only under a running svc, on a real
 * size-limited file system (a tmpfs mounted for the test: root only, skipped with a message
 * elsewhere). In each state: nothing acknowledged is lost, /api/health says `degraded` with the
 * right reason, writes answer 503 storage_unavailable with Retry-After, searches still answer; and
 * svc recovers without a restart (health ok, writes taken, everything searchable), then once more
 * after a restart. A start on a read-only data dir stops at once, naming the cause.
 */
const BATCH = 200;
const INDEX = 'faults';

interface Health {
  status: string;
  problems?: { kind: string; message: string; since: string; path?: string }[];
}

function mount(args: string[]): boolean {
  return spawnSync('mount', args, { stdio: 'ignore' }).status === 0;
}

async function eventually<T>(what: string, secs: number, get: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + secs * 1000;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Fills the file system holding `dir` to the last 4 KiB with one file. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10]) {
      const chunk = Buffer.alloc(size, 120);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break; // ENOSPC at this chunk size: try a smaller one
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe('disk faults under a running svc (tmpfs)', () => {
  const base = mkdtempSync(join(tmpdir(), 'svc-faults-'));
  const dataDir = join(base, 'data');
  let mounted = false;
  let srv: ProcessServer | undefined;
  let token = '';
  let admin = '';
  const acked = new Set<number>();
  let next = 0;
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SVC_TEST_SEGMENT_AGE_MS: '300',
    SVC_DUCKDB_MEMORY_LIMIT: '256MB',
  };

  before(() => {
    mkdirSync(dataDir);
    mounted = process.getuid?.() === 0 && mount(['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', dataDir]);
  });
  after(async () => {
    if (srv && srv.child.exitCode === null) {
      srv.child.kill('SIGKILL');
      await srv.stop();
    }
    if (mounted) {
      mount(['-o', 'remount,rw', dataDir]);
      if (spawnSync('umount', [dataDir]).status !== 0) spawnSync('umount', ['-l', dataDir]);
    }
    rmSync(base, { recursive: true, force: true });
  });

  const health = async (): Promise<Health> => (await fetch(`${srv!.url}/api/health`)).json() as Promise<Health>;
  const ingest = async (): Promise<{
    status: number;
    retryAfter: string | null;
    body: { error?: { code: string; message: string } };
  }> => {
    const b = next++;
    const lines = Array.from({ length: BATCH }, (_, i) =>
      JSON.stringify({ batch: b, seq: b * BATCH + i, message: `fault batch ${b} event ${i}` }),
    );
    const res = await fetch(`${srv!.url}/api/ingest?index=${INDEX}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    if (res.status === 200) acked.add(b);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as never };
  };
  const searchable = async (): Promise<Map<number, number>> => {
    const qs = new URLSearchParams({ q: '* | stats count by batch', env: 'default', index: INDEX, limit: '10000' });
    const res = await fetch(`${srv!.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${admin}` } });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const r = JSON.parse(text) as { columns: string[]; rows: unknown[][] };
    const [bi, ci] = ['batch', 'count'].map((c) => r.columns.indexOf(c));
    return new Map(r.rows.map((row) => [Number(row[bi]), Number(row[ci])]));
  };
  const assertAllAckedOnce = async () => {
    const found = await searchable();
    for (const b of acked) assert.equal(found.get(b), BATCH, `acknowledged batch ${b}`);
    for (const [b, n] of found)
      assert.ok(acked.has(b) && n === BATCH, `batch ${b}: ${n} events, acknowledged: ${acked.has(b)}`);
  };
  const assertRefused = async (state: string) => {
    const r = await ingest();
    assert.equal(r.status, 503, `${state}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error?.code, 'storage_unavailable');
    assert.ok(Number(r.retryAfter) >= 1, `${state}: Retry-After ${r.retryAfter}`);
  };
  /**
   * HEC, Loki, OTLP and `_bulk` refuse in their own shapes, each with Retry-After. Each sends 16 KiB:
   * a "full" tmpfs still has the slack of the open WAL file's last page, where a tiny event fits.
   */
  const assertEveryProtocolRefuses = async (state: string) => {
    const h = (scheme: string, type = 'application/json') => ({
      authorization: `${scheme} ${token}`,
      'content-type': type,
    });
    const big = 'z'.repeat(16 << 10);
    const hec = await fetch(`${srv!.url}/services/collector/event`, {
      method: 'POST',
      headers: h('Splunk'),
      body: JSON.stringify({ event: big }),
    });
    assert.equal(hec.status, 503, `${state}: HEC`);
    assert.deepEqual(await hec.json(), { text: 'Server is busy', code: 9 });
    const loki = await fetch(`${srv!.url}/loki/api/v1/push`, {
      method: 'POST',
      headers: h('Bearer'),
      body: JSON.stringify({ streams: [{ stream: { a: 'b' }, values: [[`${Date.now()}000000`, big]] }] }),
    });
    assert.equal(loki.status, 503, `${state}: Loki`);
    assert.match(await loki.text(), /^storage_unavailable: /);
    const otlp = await fetch(`${srv!.url}/v1/logs`, {
      method: 'POST',
      headers: h('Bearer'),
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: big } }] }] }] }),
    });
    assert.equal(otlp.status, 503, `${state}: OTLP`);
    const es = await fetch(`${srv!.url}/_bulk`, {
      method: 'POST',
      headers: h('ApiKey', 'application/x-ndjson'),
      body: `{"index":{}}\n${JSON.stringify({ message: big })}\n`,
    });
    // Elasticsearch answers a batch its storage cannot take as a whole: 503 unavailable_shards_exception
    const bulk = (await es.json()) as { error?: { type: string } };
    assert.equal(es.status, 503, `${state}: _bulk`);
    assert.equal(bulk.error?.type, 'unavailable_shards_exception');
    for (const r of [hec, loki, otlp, es])
      assert.ok(Number(r.headers.get('retry-after')) >= 1, `${state}: Retry-After on ${r.url}`);
  };
  const recover = async (state: string) => {
    await eventually(`a write taken after ${state}`, 30, ingest, (r) => r.status === 200);
    await eventually(`health ok after ${state}`, 40, health, (h) => h.status === 'ok' && h.problems === undefined);
    await assertAllAckedOnce();
  };

  it('starts healthy and takes writes', async (t) => {
    if (!mounted) {
      t.skip('cannot mount a tmpfs here (needs root): disk-fault tests skipped');
      console.log('# skipped: cannot mount a tmpfs here (needs root)');
      return;
    }
    srv = await startServerProcess(env);
    token = await createIngestToken(srv, { env: 'default' });
    admin = await adminToken(srv);
    for (let i = 0; i < 5; i++) assert.equal((await ingest()).status, 200);
    assert.deepEqual(await health(), { status: 'ok' });
  });

  it('on a full disk: refuses writes with 503 and Retry-After, says disk_full, keeps serving, and recovers when space returns', async (t) => {
    if (!srv) return t.skip('no tmpfs');
    const filler = join(dataDir, 'filler');
    fill(filler);
    try {
      await assertRefused('disk full'); // the very first write after the disk filled
      await assertRefused('disk full');
      await assertEveryProtocolRefuses('disk full');
      // svc's own self-log lines about the refusals fit in the open WAL page's slack: still full
      await new Promise((r) => setTimeout(r, 1500));
      const h = await eventually('health degraded', 10, health, (x) => x.status === 'degraded');
      console.log('# health on a full disk:', JSON.stringify(h));
      const full = h.problems!.find((p) => p.kind === 'disk_full');
      assert.ok(full, JSON.stringify(h));
      assert.match(full.message, /ENOSPC: no space left on the disk/);
      assert.ok(!JSON.stringify(h).includes(dataDir), 'health names no full path');
      await assertAllAckedOnce(); // searches still answer, nothing acknowledged is missing
    } finally {
      rmSync(filler, { force: true }); // a failure here must not leave the later tests a full disk
    }
    await recover('the disk was freed');
  });

  it('on a disk turned read-only: refuses writes with 503 and Retry-After, says disk_read_only, keeps serving, and recovers when it is writable', async (t) => {
    if (!srv) return t.skip('no tmpfs');
    // a file system with files open for writing cannot be remounted read-only: wait until svc has
    // rotated its WAL segment and sealed it (SVC_TEST_SEGMENT_AGE_MS=300) and try again
    await eventually(
      'a remount read-only',
      30,
      async () => mount(['-o', 'remount,ro', dataDir]),
      (ok) => ok,
    );
    await assertRefused('read-only');
    await assertRefused('read-only');
    await assertEveryProtocolRefuses('read-only');
    const h = await eventually('health degraded', 10, health, (x) => x.status === 'degraded');
    console.log('# health on a read-only disk:', JSON.stringify(h));
    const ro = h.problems!.find((p) => p.kind === 'disk_read_only');
    assert.ok(ro, JSON.stringify(h));
    assert.match(ro.message, /EROFS: the disk is read-only/);
    await assertAllAckedOnce();
    assert.ok(mount(['-o', 'remount,rw', dataDir]));
    await recover('the disk was writable again');
  });

  it('keeps every acknowledged event exactly once through a restart', async (t) => {
    if (!srv) return t.skip('no tmpfs');
    assert.equal(await srv.stop(), 0);
    srv = await startServerProcess(env);
    admin = await adminToken(srv);
    await assertAllAckedOnce();
    assert.deepEqual(await health(), { status: 'ok' });
    assert.equal(await srv.stop(), 0);
  });

  it('refuses to start on a read-only data dir, naming the cause, and leaves it as it was', async (t) => {
    if (!srv) return t.skip('no tmpfs');
    assert.ok(mount(['-o', 'remount,ro', dataDir]));
    try {
      const r = await runServerProcessToExit(env);
      assert.equal(r.code, 1, r.output);
      assert.match(
        r.output,
        /svc: cannot start: cannot lock the data dir .* \(EROFS: the disk is read-only\): svc writes its write-ahead log there and needs it writable/,
      );
    } finally {
      assert.ok(mount(['-o', 'remount,rw', dataDir]));
    }
    srv = await startServerProcess(env);
    admin = await adminToken(srv);
    await assertAllAckedOnce();
    assert.equal(await srv.stop(), 0);
  });
});
