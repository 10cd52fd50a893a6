import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, createIngestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A lone node's lookup tables across a restart: kept in the data dir, strays swept at start. */
async function searchRows(srv: TestServer, q: string): Promise<unknown[][]> {
  const res = await fetch(`${srv.url}/api/search?${new URLSearchParams({ q, from: '-1h' })}`, {
    headers: { authorization: `Bearer ${await adminToken(srv)}` },
  });
  const body = (await res.json()) as { rows: unknown[][] };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.rows;
}

async function putCsv(srv: TestServer, name: string, csv: string): Promise<number> {
  const res = await fetch(`${srv.url}/api/admin/lookups/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await adminToken(srv)}`, 'content-type': 'text/csv' },
    body: csv,
  });
  return res.status;
}

describe('lookup tables on a lone node across a restart', () => {
  it('serves the current version after a restart and removes the files no version names', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-lookup-restart-'));
    try {
      let srv = await startTestServer({}, { dataDir });
      const ingest = await createIngestToken(srv, { env: 'default' });
      const body = ['u1', 'u2', 'u3'].map((uid) => JSON.stringify({ uid, message: `login ${uid}` })).join('\n');
      assert.equal(
        (
          await fetch(`${srv.url}/api/ingest?index=main`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/x-ndjson' },
            body,
          })
        ).status,
        200,
      );
      assert.equal(await putCsv(srv, 'users', 'uid,name\nu1,Ann\nu2,Bob\n'), 201);
      assert.equal(await putCsv(srv, 'users', 'uid,name\nu1,Ann\nu2,Bob\nu3,Cy\n'), 200);
      const q = '* | lookup users uid | stats count by name | sort name';
      assert.deepEqual(await searchRows(srv, q), [
        ['Ann', 1],
        ['Bob', 1],
        ['Cy', 1],
      ]);
      await srv.close();

      // what a crash can leave: a version written but never named, a temp file
      const dir = join(dataDir, 'lookups', 'users');
      assert.equal(readdirSync(dir).length, 4, 'the replaced version waits out its grace period');
      writeFileSync(join(dir, 'crashed-upload.parquet'), 'x');
      mkdirSync(join(dataDir, 'lookups', 'gone'));
      writeFileSync(join(dataDir, 'lookups', 'gone', 'old.csv'), 'a\n1\n');

      srv = await startTestServer({}, { dataDir });
      try {
        assert.deepEqual(await searchRows(srv, q), [
          ['Ann', 1],
          ['Bob', 1],
          ['Cy', 1],
        ]);
        assert.equal(readdirSync(dir).length, 2, `only the current version: ${readdirSync(dir).join(', ')}`);
        assert.ok(!existsSync(join(dataDir, 'lookups', 'gone')));
      } finally {
        await srv.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
