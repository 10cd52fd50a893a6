import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../../src/clock/clock.js';
import { FileBlobStore } from '../../src/control/blob-store.js';
import { ControlError } from '../../src/control/errors.js';
import { loadOrCreateKeyFile } from '../../src/control/key-file.js';
import { ControlStore } from '../../src/control/store.js';
import { SvcError } from '../../src/errors/svc-error.js';

const log = pino({ level: 'silent' });
const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));

describe('control plane store', () => {
  let dir: string;
  let path: string;
  let key: Buffer;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-control-'));
    path = join(dir, 'control.json');
    key = randomBytes(32);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** null: encryption off. */
  const open = (k: Buffer | null = key) =>
    ControlStore.open({ blob: new FileBlobStore(path), encryptionKey: k ?? undefined, clock, log });
  const addEnv = (s: ControlStore, name: string) => s.mutate((d) => void d.envs.push({ name, createdAt: 'now' }));

  it('creates an empty document at version 1 on first open', async () => {
    const s = await open();
    assert.equal(s.version, 1);
    assert.deepEqual(s.envs(), []);
    await s.close();
  });

  it('stores the document encrypted: no name is readable in the file', async () => {
    const s = await open();
    await addEnv(s, 'payments-prod');
    const raw = readFileSync(path, 'utf8');
    assert.doesNotMatch(raw, /payments-prod/);
    const env = JSON.parse(raw) as { format: string; alg: string };
    assert.equal(env.format, 'svc-control-encrypted');
    assert.equal(env.alg, 'AES-256-GCM');
    await s.close();
  });

  it('reads back what it wrote, with a bumped version, after reopening', async () => {
    const s = await open();
    await addEnv(s, 'prod');
    await s.close();
    const again = await open();
    assert.equal(again.version, 2);
    assert.equal(again.env('prod')?.name, 'prod');
    await again.close();
  });

  it('stores plain JSON when encryption is off', async () => {
    const s = await open(null);
    await addEnv(s, 'prod');
    assert.match(readFileSync(path, 'utf8'), /"prod"/);
    await s.close();
  });

  it('encrypts a plain document when opened with encryption on', async () => {
    await (await open(null)).close();
    const s = await open();
    assert.match(readFileSync(path, 'utf8'), /svc-control-encrypted/);
    await s.close();
  });

  it('refuses an encrypted document when encryption is off, leaving it untouched', async () => {
    await (await open()).close();
    const before = readFileSync(path);
    await assert.rejects(
      open(null),
      (e: unknown) => e instanceof ControlError && /SVC_CONTROL_ENCRYPTION/.test(e.message),
    );
    assert.deepEqual(readFileSync(path), before);
  });

  it('refuses to open with a wrong key, says why, and leaves the file untouched', async () => {
    const s = await open();
    await addEnv(s, 'prod');
    await s.close();
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    await assert.rejects(
      open(randomBytes(32)),
      (e: unknown) =>
        e instanceof ControlError &&
        /cannot decrypt the control plane/.test(e.message) &&
        /control key/.test(e.message),
    );
    assert.deepEqual(readFileSync(path), before);
    assert.equal(statSync(path).mtimeMs, mtime);
  });

  it('refuses a corrupt file and leaves it untouched', async () => {
    writeFileSync(path, '{"format":"svc-control-encr');
    await assert.rejects(open(), (e: unknown) => e instanceof ControlError && /not valid JSON/.test(e.message));
    assert.equal(readFileSync(path, 'utf8'), '{"format":"svc-control-encr');
  });

  it('refuses a tampered ciphertext (GCM authentication)', async () => {
    await (await open()).close();
    const env = JSON.parse(readFileSync(path, 'utf8')) as { data: string };
    const bytes = Buffer.from(env.data, 'base64');
    bytes[0] ^= 1;
    env.data = bytes.toString('base64');
    writeFileSync(path, JSON.stringify(env));
    await assert.rejects(open(), ControlError);
  });

  it('stores nothing when a change throws', async () => {
    const s = await open();
    const before = readFileSync(path);
    await assert.rejects(
      s.mutate((d) => {
        d.envs.push({ name: 'half-done', createdAt: 'now' });
        throw new SvcError('invalid_input', 'name: bad');
      }),
      SvcError,
    );
    assert.equal(s.env('half-done'), undefined);
    assert.equal(s.version, 1);
    assert.deepEqual(readFileSync(path), before);
    await s.close();
  });

  it('replaces the file atomically, leaving no temporary files behind', async () => {
    const s = await open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => addEnv(s, `env-${i}`)));
    assert.equal(s.version, 21);
    assert.equal(s.envs().length, 20);
    assert.deepEqual(readdirSync(dir), ['control.json']);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    await s.close();
  });

  it('reloads when another writer (another node) replaces the document', async () => {
    const a = await open();
    const b = await open();
    await addEnv(a, 'from-a');
    assert.equal(b.env('from-a'), undefined);
    assert.equal(await b.reloadIfChanged(), true);
    assert.equal(b.env('from-a')?.name, 'from-a');
    // b's next write starts from a's document, so nothing a wrote is lost
    await addEnv(b, 'from-b');
    await a.reloadIfChanged();
    assert.deepEqual(
      a.envs().map((e) => e.name),
      ['from-a', 'from-b'],
    );
    await a.close();
    await b.close();
  });
});

describe('control key file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates a 32-byte key with mode 0600 and reads the same key back', () => {
    const p = join(dir, 'sub', 'control.key');
    const first = loadOrCreateKeyFile(p, 'control key', { create: true });
    assert.equal(first.created, true);
    assert.equal(first.key.length, 32);
    assert.equal(statSync(p).mode & 0o777, 0o600);
    const second = loadOrCreateKeyFile(p, 'control key', { create: true });
    assert.equal(second.created, false);
    assert.deepEqual(second.key, first.key);
  });

  it('refuses to invent a key when one is required but missing', () => {
    assert.throws(
      () => loadOrCreateKeyFile(join(dir, 'nope.key'), 'control key', { create: false }),
      /missing control key/,
    );
  });

  it('refuses a key file of the wrong length', () => {
    const p = join(dir, 'short.key');
    writeFileSync(p, 'c2hvcnQ=\n');
    assert.throws(() => loadOrCreateKeyFile(p, 'control key', { create: true }), /want 32 bytes/);
  });
});
