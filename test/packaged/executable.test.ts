import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken, call, createIngestToken, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import { fileSha256 } from '../../src/packaged/extract.js';

/**
 * The single executable (`npm run package`, docs/packaging.md), built once for this file and
 * copied alone into an empty folder: it runs with a PATH that has no node and a HOME of its own,
 * serves, takes NDJSON (a large body too, which goes to a decode worker started from memory),
 * finds it back, stops cleanly on SIGTERM, and rewrites a tampered DuckDB addon in its cache.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Running {
  url: string;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** A PATH of one folder holding only sh: whatever the executable runs, it cannot find a node. */
function pathWithoutNode(base: string): string {
  const bin = join(base, 'bin');
  mkdirSync(bin);
  symlinkSync('/bin/sh', join(bin, 'sh'));
  return bin;
}

/** The URL of svc's "svc listening" log line, once written. */
function listeningUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('svc listening')) continue;
    try {
      return (JSON.parse(line) as { url?: string }).url;
    } catch {
      // not yet a whole line
    }
  }
  return undefined;
}

describe('the single executable', () => {
  const base = mkdtempSync(join(tmpdir(), 'svc-package-'));
  const exe = join(base, 'run', 'svc-linux-x64');
  const home = join(base, 'home');
  let env: Record<string, string>;
  let running: Running | undefined;

  before(() => {
    const build = spawnSync(
      'npm',
      ['run', 'package', '--', '--out', join(base, 'built', 'svc-linux-x64'), '--work', join(base, 'work')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(build.status, 0, `npm run package failed:\n${build.stdout}${build.stderr}`);
    mkdirSync(join(base, 'run'));
    mkdirSync(home);
    copyFileSync(join(base, 'built', 'svc-linux-x64'), exe);
    rmSync(join(base, 'built'), { recursive: true });
    rmSync(join(base, 'work'), { recursive: true });
    env = { PATH: pathWithoutNode(base), HOME: home };
  });
  after(async () => {
    await running?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  /** Starts `svc-linux-x64 serve` in its folder; resolves once it logs "svc listening". */
  function serve(dataDir: string): Promise<Running> {
    const child = spawn(exe, ['serve', '--data-dir', dataDir, '--listen', '127.0.0.1:0'], {
      cwd: dirname(exe),
      env: { ...env, SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const stop = async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`svc did not start in 60 s:\n${out}`)), 60_000);
      void exited.then((code) => reject(new Error(`svc exited with ${code} before listening:\n${out}`)));
      child.stdout.on('data', () => {
        const url = listeningUrl(out);
        if (!url) return;
        clearTimeout(timer);
        resolve({ url, output: () => out, stop });
      });
    });
  }

  it('finds no node on its PATH', () => {
    const r = spawnSync('sh', ['-c', 'command -v node || echo none'], { env, encoding: 'utf8' });
    assert.equal(r.stdout.trim(), 'none');
  });

  it('prints its version', () => {
    const r = spawnSync(exe, ['--version'], { cwd: dirname(exe), env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), `svc ${VERSION}`);
    assert.equal(r.stderr, '');
  });

  it('serves, ingests NDJSON and finds it back, then stops cleanly on SIGTERM', async () => {
    running = await serve(join(base, 'data'));
    const srv = running;
    assert.equal((await fetch(`${srv.url}/api/health`)).status, 200);
    const page = await fetch(`${srv.url}/ui/`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module"[^>]* src="\/ui\/assets\//);

    const token = await createIngestToken(srv, { env: 'default' });
    const post = async (lines: object[]) => {
      const res = await fetch(`${srv.url}/api/ingest?index=pkg`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: lines.map((l) => JSON.stringify(l)).join('\n'),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { ingested: number; errors: number };
    };
    assert.deepEqual(
      await post([
        { message: 'packaged hello', level: 'info' },
        { message: 'packaged oops', level: 'error' },
      ]),
      { ingested: 2, errors: 0, firstErrors: [] },
    );
    // ≥ 64 KiB: decoded by a worker thread, which the executable starts from its carried source
    const big = Array.from({ length: 1000 }, (_, i) => ({ message: `bulk line ${i} ${'x'.repeat(80)}`, seq: i }));
    assert.equal((await post(big)).ingested, 1000);

    const search = async (q: string) =>
      (await call(srv, 'GET', `/api/search?${new URLSearchParams({ q, env: 'default', index: 'pkg', from: '-1h' })}`, {
        token: await adminToken(srv),
      })) as { rows: unknown[][]; events: { message?: string }[] };
    assert.deepEqual((await search('* | stats count')).rows, [[1002]]);
    assert.deepEqual(
      (await search('level=error')).events.map((e) => e.message),
      ['packaged oops'],
    );

    assert.equal(await srv.stop(), 0, srv.output());
    running = undefined;
    assert.doesNotMatch(srv.output(), /Warning|experimental/i);
  });

  it('rewrites a tampered or truncated addon in its cache before loading it', async () => {
    const cache = join(home, '.cache', 'svc');
    const folder = readdirSync(cache).find((n) => /^duckdb-[0-9a-f]{64}$/.test(n));
    assert.ok(folder, `no duckdb folder in ${cache}: ${readdirSync(cache).join(', ')}`);
    const addon = join(cache, folder, 'duckdb.node');
    const lib = join(cache, folder, 'libduckdb.so');
    const good = { addon: fileSha256(addon), lib: fileSha256(lib) };
    writeFileSync(addon, 'not an addon');
    truncateSync(lib, 1024);

    running = await serve(join(base, 'data'));
    const srv = running;
    assert.deepEqual({ addon: fileSha256(addon), lib: fileSha256(lib) }, good);
    // the data written before the restart is found again
    const res = (await call(
      srv,
      'GET',
      `/api/search?${new URLSearchParams({ q: '* | stats count', env: 'default', index: 'pkg', from: '-1h' })}`,
      { token: await adminToken(srv) },
    )) as { rows: unknown[][] };
    assert.deepEqual(res.rows, [[1002]]);
    assert.equal(await srv.stop(), 0, srv.output());
    running = undefined;
    assert.ok(existsSync(join(cache, folder)));
  });
});
