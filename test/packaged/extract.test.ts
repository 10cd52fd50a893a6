import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractVerified, fileSha256, sha256, type WantedFile } from '../../src/packaged/extract.js';
import { groupDigest } from '../../src/packaged/manifest.js';
import { unpackDir } from '../../src/config/unpack-dir.js';
import { carriedFolder, carriedSource, carriedVersion } from '../../src/packaged/carried.js';

/** What the executable does with the files it carries, on plain files (the executable itself: executable.test.ts). */

function wanted(path: string, text: string, calls: string[] = []): WantedFile {
  const bytes = Buffer.from(text);
  return { path, sha256: sha256(bytes), bytes: () => (calls.push(path), bytes) };
}

describe('writing carried files to the cache', () => {
  let dir: string;
  beforeEach(() => (dir = join(mkdtempSync(join(tmpdir(), 'svc-extract-')), 'ui-abc')));
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes every file of a new folder, private to the user', () => {
    const written = extractVerified(dir, [wanted('index.html', '<!doctype html>'), wanted('assets/app-1.js', 'run()')]);
    assert.deepEqual(written, ['index.html', 'assets/app-1.js']);
    assert.equal(readFileSync(join(dir, 'assets', 'app-1.js'), 'utf8'), 'run()');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'index.html')).mode & 0o777, 0o600);
  });

  it('keeps files whose hash matches, without asking for their bytes', () => {
    extractVerified(dir, [wanted('a.txt', 'alpha'), wanted('b.txt', 'beta')]);
    const calls: string[] = [];
    assert.deepEqual(extractVerified(dir, [wanted('a.txt', 'alpha', calls), wanted('b.txt', 'beta', calls)]), []);
    assert.deepEqual(calls, []);
  });

  it('rewrites a tampered, a truncated and a missing file', () => {
    const files = [
      wanted('duckdb.node', 'addon bytes'),
      wanted('libduckdb.so', 'library bytes'),
      wanted('extra.txt', 'x'),
    ];
    extractVerified(dir, files);
    writeFileSync(join(dir, 'duckdb.node'), 'addon bytEs');
    truncateSync(join(dir, 'libduckdb.so'), 3);
    rmSync(join(dir, 'extra.txt'));
    assert.deepEqual(extractVerified(dir, files), ['duckdb.node', 'libduckdb.so', 'extra.txt']);
    assert.equal(readFileSync(join(dir, 'duckdb.node'), 'utf8'), 'addon bytes');
    assert.equal(readFileSync(join(dir, 'libduckdb.so'), 'utf8'), 'library bytes');
  });

  it('replaces a folder standing where a file belongs', () => {
    mkdirSync(join(dir, 'index.html'), { recursive: true });
    assert.deepEqual(extractVerified(dir, [wanted('index.html', 'page')]), ['index.html']);
    assert.equal(readFileSync(join(dir, 'index.html'), 'utf8'), 'page');
  });

  it('refuses bytes that do not match the manifest', () => {
    const bad: WantedFile = { path: 'x', sha256: sha256(Buffer.from('expected')), bytes: () => Buffer.from('other') };
    assert.throws(() => extractVerified(dir, [bad]), /BUG: carried file x does not match/);
  });

  it('hashes a file like its bytes, and an absent one as undefined', () => {
    extractVerified(dir, [wanted('f', 'content')]);
    assert.equal(fileSha256(join(dir, 'f')), sha256(Buffer.from('content')));
    assert.equal(fileSha256(join(dir, 'absent')), undefined);
  });
});

describe('the carried files outside the executable', () => {
  it('answers nothing and touches no cache', () => {
    assert.equal(carriedVersion(), undefined);
    assert.equal(carriedSource('decode-worker'), undefined);
    assert.equal(carriedFolder('ui'), undefined);
  });

  it('names a group folder by the hashes of its files, in any order', () => {
    const a = { path: 'a', asset: 'g/a', sha256: sha256(Buffer.from('1')), size: 1, gzip: false };
    const b = { path: 'b', asset: 'g/b', sha256: sha256(Buffer.from('2')), size: 1, gzip: false };
    assert.equal(groupDigest([a, b]), groupDigest([b, a]));
    assert.notEqual(groupDigest([a, b]), groupDigest([a, { ...b, sha256: a.sha256 }]));
    assert.match(groupDigest([a]), /^[0-9a-f]{64}$/);
  });
});

describe('the unpack folder', () => {
  it('is SVC_UNPACK_DIR, else $XDG_CACHE_HOME/svc, else ~/.cache/svc', () => {
    assert.equal(
      unpackDir({ SVC_UNPACK_DIR: '/var/cache/svc-own', XDG_CACHE_HOME: '/x', HOME: '/home/u' }),
      '/var/cache/svc-own',
    );
    assert.equal(unpackDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' }), '/x/cache/svc');
    assert.equal(unpackDir({ XDG_CACHE_HOME: 'relative/ignored', HOME: '/home/u' }), '/home/u/.cache/svc');
    assert.equal(unpackDir({ HOME: '/home/u' }), '/home/u/.cache/svc');
  });
});
