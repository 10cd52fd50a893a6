import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wal } from '../../src/storage/wal/wal.js';
import { repairSegment } from '../../src/storage/wal/segment-repair.js';

describe('rewriting a WAL segment (the seal fallback)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-repair-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a core field an older writer left as an object or a number as its JSON text, not "[object Object]"', async () => {
    const base = { timeUs: Date.now() * 1000, env: 'default', index: 'main', sourcetype: 'st', fields: {} };
    const lines = [
      { ...base, host: { name: 'web-1', zone: 'a' }, source: 42, message: ['a', 'b'] },
      { ...base, host: 'plain', source: null, message: 'ok' },
    ];
    writeFileSync(Wal.segmentPath(dir, 7), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await repairSegment(dir, 7, 1024 * 1024);
    assert.equal(r.seg.count, 2);
    const out = readFileSync(Wal.segmentPath(dir, 7), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      out.map((e) => [e.host, e.source, e.message]),
      [
        ['{"name":"web-1","zone":"a"}', '42', '["a","b"]'],
        ['plain', '', 'ok'],
      ],
    );
  });
});
