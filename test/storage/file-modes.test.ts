import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { startServer } from '../../src/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken } from '../helpers/auth.js';
import { searchSelfLog } from '../helpers/selflog.js';

/** Every path under `dir` (itself included) with its permission bits. */
function walk(
  dir: string,
  out: { path: string; dir: boolean; mode: number }[] = [],
): { path: string; dir: boolean; mode: number }[] {
  const st = lstatSync(dir);
  out.push({ path: dir, dir: st.isDirectory(), mode: st.mode & 0o777 });
  if (st.isDirectory()) for (const name of readdirSync(dir)) walk(join(dir, name), out);
  return out;
}

describe('private files: data dir 0700, files 0600', () => {
  const parent = mkdtempSync(join(tmpdir(), 'svc-modes-'));
  after(() => rmSync(parent, { recursive: true, force: true }));

  it('creates a new data dir 0700 and every file under it 0600, after ingest, seal and a lookup upload', async () => {
    const dataDir = join(parent, 'new', 'data');
    const srv = await startTestServer({}, { dataDir });
    try {
      const token = await createIngestToken(srv, { env: 'default' });
      const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ message: `private event ${i}`, n: i })).join(
        '\n',
      );
      const res = await fetch(`${srv.url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: lines,
      });
      assert.equal(res.status, 200, await res.text());
      const put = await fetch(`${srv.url}/api/admin/lookups/hosts`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await adminToken(srv)}`, 'content-type': 'text/csv' },
        body: 'host,team\na,core\n',
      });
      assert.equal(put.status, 201, await put.text());
      await srv.deps.storage.flush();
      await srv.deps.selflog.flush();
      await srv.deps.storage.flush();
      assert.ok(srv.deps.storage.stats().blocks > 0, 'events were sealed into blocks');
      // a search reads the blocks (DuckDB may write its own files while it does)
      await call(srv, 'GET', '/api/search?q=private&env=default', { token: await adminToken(srv) });
    } finally {
      await srv.close();
    }
    const entries = walk(dataDir);
    assert.ok(
      entries.filter((e) => !e.dir).length >= 5,
      `files were written: ${entries.map((e) => e.path).join(', ')}`,
    );
    const open = entries
      .filter((e) => e.mode !== (e.dir ? 0o700 : 0o600))
      .map((e) => `${e.path} ${e.mode.toString(8)}`);
    assert.deepEqual(open, []);
    assert.ok(
      entries.some((e) => e.path.endsWith('.parquet')),
      'blocks or lookups are among the files checked',
    );
  });

  it('warns at start, in the process log and in _svclogs, when the data dir is open to others', async () => {
    const dataDir = join(parent, 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const config = loadConfig({
      SVC_LISTEN: '127.0.0.1:0',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: 'test-admin-password',
      SVC_LOG_LEVEL: 'warn',
    });
    const srv = await startServer(config, pino({ level: 'warn' }, sink));
    try {
      const warning = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .find((l) => /data dir .* is mode 0755/.test(l.msg));
      assert.ok(warning, `a warning names the mode: ${lines.join('')}`);
      assert.equal(warning.level, 40);
      const events = (
        await searchSelfLog(srv as unknown as TestServer, 'event=config_warning setting=SVC_DATA_DIR', '_svclogs')
      ).events;
      assert.equal(events.length, 1);
      // svc does not change a dir the operator made
      assert.equal(lstatSync(dataDir).mode & 0o777, 0o755);
    } finally {
      await srv.close();
    }
  });
});
