import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirStore } from '../../src/shared-store/dir-store.js';
import { describeObjectStore } from './conformance.js';

describeObjectStore('a shared directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dirstore-'));
  return { store: new DirStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe("a shared directory's locks", () => {
  it('breaks a lock that a writer which died left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-dirstore-'));
    try {
      const store = new DirStore(dir);
      const v = await store.put('doc', Buffer.from('1'));
      writeFileSync(join(dir, 'doc.lock'), 'dead writer');
      const old = Date.now() / 1000 - 60;
      utimesSync(join(dir, 'doc.lock'), old, old);
      await store.put('doc', Buffer.from('2'), { ifVersion: v });
      assert.equal((await store.get('doc'))?.data.toString(), '2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
