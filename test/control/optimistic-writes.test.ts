import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../../src/clock/clock.js';
import { ControlError } from '../../src/control/errors.js';
import { CONTROL_KEY, LEGACY_CONTROL_KEY, ObjectBlobStore } from '../../src/control/object-blob-store.js';
import { sealDoc } from '../../src/control/envelope.js';
import { emptyDoc } from '../../src/control/records.js';
import { ControlStore, MAX_WRITE_ATTEMPTS } from '../../src/control/store.js';
import { SvcError } from '../../src/errors/svc-error.js';
import { DirStore } from '../../src/shared-store/dir-store.js';
import { StoreUnavailable, type ObjectStore, type PutCondition } from '../../src/shared-store/object-store.js';

const log = pino({ level: 'silent' });
const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));

/**
 * A real DirStore whose puts can be preceded by something else: another node's write, made to land
 * between this node's read and its conditional put (the race the store must detect), or a failure.
 */
class RacingStore implements ObjectStore {
  /** Runs before each put while set. */
  beforePut: (() => Promise<void>) | undefined;
  failPuts = false;
  puts = 0;

  constructor(private readonly inner: ObjectStore) {}

  get location(): string {
    return this.inner.location;
  }
  get(key: string) {
    return this.inner.get(key);
  }
  head(key: string) {
    return this.inner.head(key);
  }
  async put(key: string, data: Buffer, cond?: PutCondition): Promise<string> {
    this.puts++;
    if (this.failPuts) throw new StoreUnavailable(this.location, 'connection refused (test)');
    if (this.beforePut) await this.beforePut();
    return this.inner.put(key, data, cond);
  }
  upload(key: string, path: string) {
    return this.inner.upload(key, path);
  }
  download(key: string, path: string) {
    return this.inner.download(key, path);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
}

describe('control plane writes shared by several nodes (optimistic, on a DirStore)', () => {
  let dir: string;
  let key: Buffer;
  const opened: ControlStore[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-optimistic-'));
    key = randomBytes(32);
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A node: its own ControlStore on the shared directory (through `store` when given); `null`: encryption off. */
  const node = async (store: ObjectStore = new DirStore(dir), k: Buffer | null = key) => {
    const s = await ControlStore.open({ blob: new ObjectBlobStore(store), encryptionKey: k ?? undefined, clock, log });
    opened.push(s);
    return s;
  };
  const addEnv = (s: ControlStore, name: string) => s.mutate((d) => void d.envs.push({ name, createdAt: 'now' }));
  const names = (s: ControlStore) =>
    s
      .envs()
      .map((e) => e.name)
      .sort();
  const stored = () => readFileSync(join(dir, ...CONTROL_KEY.split('/')));

  it('keeps every change when two nodes write at the same moment', async () => {
    const [a, b] = [await node(), await node()];
    const want = Array.from({ length: 20 }, (_, i) => [`a-${i}`, `b-${i}`]).flat();
    await Promise.all(Array.from({ length: 20 }, (_, i) => [addEnv(a, `a-${i}`), addEnv(b, `b-${i}`)]).flat());
    await a.reloadIfChanged();
    await b.reloadIfChanged();
    assert.deepEqual(names(a), [...want].sort());
    assert.deepEqual(names(b), [...want].sort());
    assert.equal(a.version, 41);
  });

  it('re-applies a change to the re-read document when another node wrote between its read and its write', async () => {
    const racing = new RacingStore(new DirStore(dir));
    const a = await node(racing);
    const b = await node();
    racing.beforePut = async () => {
      racing.beforePut = undefined;
      await addEnv(b, 'from-b');
    };
    const seen: string[][] = [];
    const result = await a.mutate((d) => {
      seen.push(d.envs.map((e) => e.name));
      d.envs.push({ name: 'from-a', createdAt: 'now' });
      return d.envs.length;
    });
    assert.deepEqual(seen, [[], ['from-b']], 'applied twice: first to what a knew, then to the document b wrote');
    assert.equal(result, 2, 'the answer is the one of the application that was stored');
    assert.deepEqual(names(a), ['from-a', 'from-b']);
    assert.equal(a.version, 3);
    await b.reloadIfChanged();
    assert.deepEqual(names(b), ['from-a', 'from-b']);
  });

  it('stores nothing when the re-applied change fails on the re-read document', async () => {
    const racing = new RacingStore(new DirStore(dir));
    const a = await node(racing);
    const b = await node();
    racing.puts = 0;
    racing.beforePut = async () => {
      racing.beforePut = undefined;
      await addEnv(b, 'prod');
    };
    const create = a.mutate((d) => {
      if (d.envs.some((e) => e.name === 'prod'))
        throw new SvcError('already_exists', 'environment "prod" already exists');
      d.envs.push({ name: 'prod', createdAt: 'by a' });
    });
    await assert.rejects(create, (e: unknown) => e instanceof SvcError && e.code === 'already_exists');
    assert.equal(racing.puts, 1, 'the second application threw before writing');
    await b.reloadIfChanged();
    assert.equal(b.env('prod')?.createdAt, 'now');
    assert.equal(b.version, 2);
  });

  it(`gives up with control_unavailable after ${MAX_WRITE_ATTEMPTS} lost writes, keeping nothing of the change`, async () => {
    const racing = new RacingStore(new DirStore(dir));
    const a = await node(racing);
    const b = await node();
    let other = 0;
    racing.beforePut = async () => void (await addEnv(b, `b-${other++}`));
    let applied = 0;
    const lost = a.mutate((d) => {
      applied++;
      d.envs.push({ name: 'from-a', createdAt: 'now' });
    });
    await assert.rejects(
      lost,
      (e: unknown) =>
        e instanceof SvcError &&
        e.code === 'control_unavailable' &&
        e.kind === 'unavailable' &&
        /try again/.test(e.message),
    );
    assert.equal(applied, MAX_WRITE_ATTEMPTS);
    racing.beforePut = undefined;
    await b.reloadIfChanged();
    assert.equal(b.env('from-a'), undefined);
    assert.equal(b.envs().length, MAX_WRITE_ATTEMPTS);
    // the next change, once the others are quiet, goes through
    await addEnv(a, 'later');
    assert.ok(a.env('later'));
  });

  it('fails the call with control_unavailable when the store cannot be reached, changing nothing', async () => {
    const racing = new RacingStore(new DirStore(dir));
    const a = await node(racing);
    const before = stored();
    racing.failPuts = true;
    await assert.rejects(
      addEnv(a, 'prod'),
      (e: unknown) => e instanceof SvcError && e.code === 'control_unavailable' && /unavailable/.test(e.message),
    );
    assert.equal(a.env('prod'), undefined);
    assert.equal(a.version, 1);
    assert.deepEqual(stored(), before);
    racing.failPuts = false;
    await addEnv(a, 'prod');
    assert.equal(a.version, 2);
  });

  it('creates one first document when two nodes start on an empty store at once', async () => {
    const [a, b] = await Promise.all([node(), node()]);
    assert.equal(a.version, 1);
    assert.equal(b.version, 1);
    assert.equal(a.doc.updatedAt, b.doc.updatedAt);
    await addEnv(b, 'prod');
    await a.reloadIfChanged();
    assert.deepEqual(names(a), ['prod']);
  });

  it('refuses a plain document with encryption on, writing nothing: the other nodes run with it off', async () => {
    const off = await node(new DirStore(dir), null);
    await addEnv(off, 'prod');
    const before = stored();
    await assert.rejects(
      node(),
      (e: unknown) =>
        e instanceof ControlError && /clear text/.test(e.message) && /SVC_CONTROL_ENCRYPTION/.test(e.message),
    );
    assert.deepEqual(stored(), before);
  });

  it('reads a control plane left at the store root by an older svc, and writes the first change to its new key', async () => {
    const legacy = join(dir, LEGACY_CONTROL_KEY);
    const doc = { ...emptyDoc('2025-01-01T00:00:00Z'), version: 7, envs: [{ name: 'old', createdAt: 'then' }] };
    mkdirSync(dir, { recursive: true });
    writeFileSync(legacy, sealDoc(doc, key));
    const legacyBytes = readFileSync(legacy);
    const [a, b] = [await node(), await node()];
    assert.deepEqual(names(a), ['old']);
    await Promise.all([addEnv(a, 'from-a'), addEnv(b, 'from-b')]);
    await a.reloadIfChanged();
    assert.deepEqual(names(a), ['from-a', 'from-b', 'old']);
    assert.equal(a.version, 9);
    assert.deepEqual(readFileSync(legacy), legacyBytes, 'the old object is left as it was');
  });
});
