import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createIngestToken } from '../helpers/auth.js';
import { dropUnfinishedParts } from '../../src/storage/parts/part-commit.js';
import { pickMerges, type MergePolicy } from '../../src/storage/blocks/merge-policy.js';
import type { Block } from '../../src/storage/blocks/block-files.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildParts } from '../../src/storage/parts/part-build.js';
import { Bloom } from '../../src/storage/blocks/bloom.js';
import { tokenPieces } from '../../src/storage/blocks/tokens.js';
import type { LogEvent } from '../../src/events/event.js';

// Parts (docs/storage.md, "Parts"): bodies a decode worker decodes into enough events are written
// by that worker as compressed blocks, without the WAL. The same real files sent to an svc writing
// parts and to one sending everything through the WAL must give the same events back, field for
// field; the parts' own files must be what the sidecars say.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');

/** Real files, each sent whole as one body: [path under DATA, media type, index]. */
const FILES: [string, string, string][] = [
  ['zeek-wrccdc-json/smtp.json', 'application/x-ndjson', 'zeek'],
  ['zeek-wrccdc-json/syslog.json', 'application/x-ndjson', 'zeek'],
  ['zeek-wrccdc-json/notice.json', 'application/x-ndjson', 'zeek'],
  ['loghub/OpenSSH/OpenSSH_2k.log', 'text/plain', 'ssh'],
  ['loghub/Linux/Linux_2k.log', 'text/plain', 'linux'],
  ['elastic-examples-apache/apache_access_combined.log', 'text/plain', 'apache'],
];

async function ingestAll(srv: TestServer): Promise<number> {
  const token = await createIngestToken(srv, { env: 'default' });
  let total = 0;
  for (const [rel, type, index] of FILES) {
    const res = await fetch(`${srv.url}/api/ingest?index=${index}&sourcetype=${index}&source=${rel}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body: readFileSync(join(DATA, rel)),
    });
    const body = (await res.json()) as { ingested: number };
    assert.equal(res.status, 200, JSON.stringify(body));
    total += body.ingested;
  }
  return total;
}

/** Every event, as svc exports it, one JSON text each, sorted. */
async function exportAll(srv: TestServer): Promise<string[]> {
  const qs = new URLSearchParams({ q: '*', format: 'ndjson', from: '1970-01-01T00:00:00Z', max: '100000' });
  const res = await fetch(`${srv.url}/api/export?${qs}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  assert.equal(res.status, 200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('{') && !l.startsWith('{"svc_export"'))
    .sort();
}

async function search(srv: TestServer, q: string): Promise<unknown[][]> {
  const qs = new URLSearchParams({ q, from: '1970-01-01T00:00:00Z', limit: '10000' });
  const res = await fetch(`${srv.url}/api/search?${qs}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  const body = (await res.json()) as { rows: unknown[][] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.rows;
}

function sidecars(dir: string): { count: number; granules: { hash?: string }; walSeg: number | null }[] {
  const out: { count: number; granules: { hash?: string }; walSeg: number | null }[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.json')) out.push(JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  walk(join(dir, 'blocks'));
  return out;
}

describe(
  'parts: events a decode worker writes as blocks',
  { skip: !existsSync(DATA) && `no real data at ${DATA}` },
  () => {
    let parts: TestServer;
    let wal: TestServer;
    let total = 0;
    before(async () => {
      // SVC_PART_MIN_EVENTS=100: the small Zeek file becomes a part too (its body is still ≥ 64 KiB)
      parts = await startTestServer({ SVC_PART_MIN_EVENTS: '100', SVC_INGEST_WORKERS: '2' });
      wal = await startTestServer({ SVC_PART_MIN_EVENTS: '0', SVC_INGEST_WORKERS: '2' });
      total = await ingestAll(parts);
      assert.equal(await ingestAll(wal), total);
      await wal.deps.storage.flush();
    });
    after(async () => {
      await parts?.close();
      await wal?.close();
    });

    it('acknowledges them as blocks, searchable at once, with no WAL line', () => {
      const side = sidecars(parts.dataDir).filter((s) => s.granules.hash === 't2');
      assert.equal(
        side.reduce((n, s) => n + s.count, 0),
        total,
        'every event is in a part',
      );
      assert.ok(side.every((s) => s.walSeg === null));
      // the WAL holds svc's own log at most, none of the events sent
      for (const seg of readdirSync(join(parts.dataDir, 'wal')).filter((n) => n.endsWith('.ndjson'))) {
        const lines = readFileSync(join(parts.dataDir, 'wal', seg), 'utf8')
          .split('\n')
          .filter(Boolean);
        for (const l of lines) assert.match((JSON.parse(l) as { index: string }).index, /^_svc/, seg);
      }
    });

    it('gives back the same events, field for field, as the WAL path', async () => {
      const a = await exportAll(parts);
      const b = await exportAll(wal);
      assert.equal(a.length, total);
      assert.equal(b.length, total);
      const onlyA = a.filter((x, i) => x !== b[i]);
      assert.deepEqual(onlyA.slice(0, 3), [], 'events that differ between parts and the WAL path');
    });

    it('answers searches as the WAL path does: terms, fields, counts by time', async () => {
      for (const q of [
        'sshd Failed password | stats count by host',
        '* | stats count by index, sourcetype',
        '* | stats count by host',
        '* | stats count as n by source',
        'index=zeek | stats count, dc(uid) by _path',
        'index=apache GET | timechart span=1d count',
        'smtp OR notice | stats count by index',
      ]) {
        const rows = await search(parts, q);
        assert.ok(rows.length > 0, `${q} finds something`);
        assert.deepEqual(rows, await search(wal, q), q);
      }
    });
  },
);

function fieldsOf(i: number): LogEvent['fields'] {
  return i % 2 ? { status: 200 + (i % 5), user: `u${i % 11}` } : {};
}

describe('parts: the file a worker writes', () => {
  it('gives each granule the tokens of exactly its rows of the file, in the order written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-part-'));
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    try {
      const day = Date.UTC(2026, 10, 20);
      const events: LogEvent[] = Array.from({ length: 30_000 }, (_, i) => ({
        timeUs: (day + ((i * 7919) % 86_400_000)) * 1000,
        env: 'default',
        index: 'main',
        host: `web-${(i * 31) % 5}`,
        source: i % 3 === 0 ? '/var/log/a' : '/var/log/b',
        sourcetype: 'st',
        message: `request ${i} from 10.0.${i % 256}.${(i * 7) % 256} unique${i}`,
        fields: fieldsOf(i),
      }));
      const parts = await buildParts(c, events, dir);
      assert.equal(parts.length, 1);
      const { meta, tmp } = parts[0];
      assert.equal(meta.count, 30_000);
      assert.equal(meta.granules!.rows, 8192);
      assert.equal(meta.granules!.m.length, 4);
      const blooms = meta.granules!.b64.map((b, i) => Bloom.fromBase64(b, meta.granules!.m[i], 't2'));
      const r = await c.runAndReadAll(
        `SELECT file_row_number, message, host FROM read_parquet('${tmp}', file_row_number = true) ORDER BY 1`,
      );
      const rows = r.getRowsJS() as [bigint, string, string][];
      assert.equal(rows.length, 30_000);
      let elsewhere = 0;
      for (const [frn, message] of rows) {
        const g = Math.floor(Number(frn) / 8192);
        for (const piece of tokenPieces(message)) assert.ok(blooms[g].mightContain(piece), `row ${frn}: ${piece}`);
        const unique = message.slice(message.lastIndexOf(' ') + 1);
        if (blooms[(g + 1) % blooms.length].mightContain(unique)) elsewhere++;
      }
      assert.ok(elsewhere < 600, `a row's unique token found in another granule ${elsewhere} times of 30000`);
      // block order: the host column runs in groups, which ZSTD needs
      let changes = 0;
      for (let i = 1; i < rows.length; i++) if (rows[i][2] !== rows[i - 1][2]) changes++;
      assert.ok(changes < 20, `host changes ${changes} times`);
      assert.deepEqual(
        meta.valueCounts!.host!.n.reduce((a, b) => a + b, 0),
        30_000,
      );
    } finally {
      c.closeSync();
      inst.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parts: recovery and merging', () => {
  it('drops the parts of a commit that never finished, and only those', () => {
    const data = mkdtempSync(join(tmpdir(), 'svc-parts-'));
    try {
      const walDir = join(data, 'wal');
      const day = join(data, 'blocks', 'default', 'main', '2026-11-20');
      mkdirSync(walDir, { recursive: true });
      mkdirSync(day, { recursive: true });
      for (const n of ['n-1', 'n-2', 'n-3']) {
        writeFileSync(join(day, `${n}.parquet`), 'x');
        writeFileSync(join(day, `${n}.json`), '{}');
      }
      const listed = ['n-1', 'n-2'].map((n) => join('blocks', 'default', 'main', '2026-11-20', `${n}.parquet`));
      writeFileSync(join(walDir, 'parts-1.pending'), JSON.stringify(listed));
      writeFileSync(join(walDir, 'parts-2.pending'), '["blo'); // cut short: nothing was renamed yet
      assert.equal(dropUnfinishedParts(walDir), 2);
      assert.deepEqual(readdirSync(day).sort(), ['n-3.json', 'n-3.parquet']);
      assert.deepEqual(readdirSync(walDir), []);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('leaves big parts alone while their partition is written, merges small ones', () => {
    const policy: MergePolicy = {
      smallEvents: 65_536,
      partEvents: 8_192,
      settledEvents: 500_000,
      settledMs: 600_000,
      hotMaxBlocks: 32,
      targetEvents: 1_000_000,
      minBlocks: 4,
      coldMs: 30_000,
    };
    const block = (name: string, count: number, walSeg: number | null): Block =>
      ({
        meta: {
          name,
          env: 'e',
          index: 'i',
          day: '2026-11-20',
          count,
          walSeg,
          replaces: [],
          hasExtra: false,
          createdAt: 1000,
        },
      }) as unknown as Block;
    const now = 2000;
    const bigParts = [1, 2, 3, 4, 5].map((k) => block(`p${k}`, 20_000, null));
    assert.deepEqual(pickMerges(bigParts, now, policy), []);
    const smallParts = [1, 2, 3, 4].map((k) => block(`s${k}`, 2_000, null));
    assert.deepEqual(
      pickMerges(smallParts, now, policy).map((g) => g.map((b) => b.meta.name)),
      [['s1', 's2', 's3', 's4']],
    );
    const sealed = [1, 2, 3, 4].map((k) => block(`w${k}`, 20_000, k));
    assert.equal(pickMerges(sealed, now, policy).length, 1);
    // once the partition is quiet, big parts merge too
    assert.equal(pickMerges(bigParts, now + 600_000, policy).length, 1);
  });
});

describe('parts: a worker that cannot write them', () => {
  it('sends the batch through the WAL, acknowledged and searchable, tells health why, and clears it once parts are written again', async () => {
    const srv = await startTestServer({ SVC_PART_MIN_EVENTS: '100', SVC_INGEST_WORKERS: '1' });
    try {
      const token = await createIngestToken(srv, { env: 'default' });
      // ≥ 64 KiB, so the body goes to the decode worker, and ≥ 100 events, so it tries parts
      const body = (tag: string) =>
        Array.from({ length: 400 }, (_, i) =>
          JSON.stringify({ _time: '2026-11-20T10:00:00Z', message: `${tag} event ${i} ${'x'.repeat(200)}` }),
        ).join('\n');
      const send = async (tag: string) => {
        const res = await fetch(`${srv.url}/api/ingest?index=pf`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
          body: body(tag),
        });
        assert.equal(res.status, 200, await res.text());
      };
      const health = async () =>
        (await (await fetch(`${srv.url}/api/health`)).json()) as {
          status: string;
          problems?: { kind: string; message: string }[];
        };
      const scratch = join(srv.dataDir, 'tmp', 'parts');
      rmSync(scratch, { recursive: true });
      writeFileSync(scratch, 'not a folder'); // every part's file fails to open
      await send('throughwal');
      const h = await health();
      assert.equal(h.status, 'degraded');
      const p = h.problems?.find((x) => x.kind === 'parts_failed');
      assert.ok(p, JSON.stringify(h));
      assert.match(p.message, /^cannot write a batch as parts: .*; the batch went through the WAL$/);
      assert.deepEqual(await search(srv, 'throughwal | stats count'), [[400]]);
      assert.equal(sidecars(srv.dataDir).length, 0, 'no part was published');

      rmSync(scratch);
      mkdirSync(scratch);
      await send('aspart');
      assert.deepEqual(await health(), { status: 'ok' });
      assert.deepEqual(await search(srv, 'aspart | stats count'), [[400]]);
      assert.equal(sidecars(srv.dataDir).length, 1, 'the second batch is a part');
    } finally {
      await srv.close();
    }
  });
});
