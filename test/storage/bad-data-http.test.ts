import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken } from '../helpers/auth.js';
import { Wal } from '../../src/storage/wal/wal.js';
import { makeEvents, T0 } from './helpers.js';

// What a search, the catalog and MCP answer over data an older svc left on disk: times outside
// years 1..9999 in a WAL segment, and a block file that can no longer be read.

/** Status and body (parsed JSON, read field by field). */
async function get(srv: TestServer, token: string, path: string) {
  const res = await fetch(`${srv.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

function search(q: string, env = 'default'): string {
  return `/api/search?${new URLSearchParams({ q, env, limit: '1000' })}`;
}

function parquetFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...parquetFiles(p));
    else if (p.endsWith('.parquet')) out.push(p);
  }
  return out;
}

describe('bad data on disk over HTTP', () => {
  it('answers the catalog with 200 and seals a segment holding year-10000, year-0 and 1e308 times', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bad-times-'));
    mkdirSync(join(dataDir, 'wal'));
    const times = [T0, 253402300800000000, -62167219200000000, 1e308];
    const lines = times.map((timeUs, i) =>
      JSON.stringify({
        timeUs,
        env: 'default',
        index: 'main',
        host: 'h',
        source: 's',
        sourcetype: 't',
        message: `odd time ${i}`,
        fields: { seq: i },
      }),
    );
    writeFileSync(Wal.segmentPath(join(dataDir, 'wal'), 1), lines.join('\n') + '\n');
    const srv = await startTestServer({}, { dataDir });
    try {
      const admin = await adminToken(srv);
      const before = await get(srv, admin, '/api/catalog');
      assert.equal(before.status, 200, JSON.stringify(before.body));
      await srv.deps.storage.flush();
      const after = await get(srv, admin, '/api/catalog');
      assert.equal(after.status, 200, JSON.stringify(after.body));
      const r = await get(srv, admin, search('"odd time"'));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.meta.matched, 4);
      const originals = r.body.events
        .map((e: { fields: { time_original?: string } }) => e.fields.time_original)
        .filter(Boolean)
        .sort();
      assert.deepEqual(originals, ['+010000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '1e+308']);
    } finally {
      await srv.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("answers a search meeting an unreadable block with 200, the other blocks' events and a warning, never invalid_query", async () => {
    const srv = await startTestServer({}, { keepData: true });
    try {
      const admin = await adminToken(srv);
      await srv.deps.writer.write(makeEvents(30, { index: 'good', tag: 'g' }), { wait: true });
      await srv.deps.writer.write(makeEvents(20, { index: 'bad', tag: 'b' }), { wait: true });
      await srv.deps.storage.flush();
      const bad = parquetFiles(join(srv.dataDir, 'blocks')).filter((p) => p.includes('/bad/'));
      assert.equal(bad.length, 1);
      // damage on disk: the block file is no longer Parquet (its sidecar is intact)
      writeFileSync(bad[0], Buffer.alloc(statSync(bad[0]).size, 0x42));
      for (const q of ['*', '* | stats count by index']) {
        for (const env of ['default', '*']) {
          const r = await get(srv, admin, search(q, env));
          assert.equal(r.status, 200, `${q} env=${env}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.meta.warnings?.length, 1, JSON.stringify(r.body.meta));
          if (q === '*') assert.equal(r.body.events.length, 30);
          else assert.deepEqual(r.body.rows, [['good', 30]]);
        }
      }
      // the count fast path (minute counts, rows only at the edges) leaves it out too
      const chart = await get(srv, admin, search('* | timechart span=1d count'));
      assert.equal(chart.status, 200, JSON.stringify(chart.body));
      assert.equal(
        chart.body.rows.reduce((n: number, r: unknown[]) => n + Number(r[1]), 0),
        30,
      );
      // the other env's searches are not told of it
      const other = await get(srv, admin, search('*', '_system'));
      assert.equal(other.status, 200);
      assert.equal(other.body.meta.warnings, undefined);
    } finally {
      await srv.close();
      rmSync(srv.dataDir, { recursive: true, force: true });
    }
  });
});
