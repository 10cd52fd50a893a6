import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { GRANULE_ROWS } from '../../src/storage/blocks/token-filters.js';
import { Bloom } from '../../src/storage/blocks/bloom.js';
import { tokenHash, tokenPieces } from '../../src/storage/blocks/tokens.js';
import { T0, makeEvents, openStorage, type TestStorage } from './helpers.js';

const G = GRANULE_ROWS;
/** Three and a half granules. */
const N = 3 * G + G / 2;
/** Granule 2, and its first and last row. */
const [RARE, G2_FIRST, G2_LAST] = [2 * G + 1234, 2 * G, 3 * G - 1];

/** One block's worth (one day from midnight, 0.3 s apart); an event of granule 0 and one of granule 2 carry the word "marker". */
function events() {
  return makeEvents(N, { startUs: T0 - 12 * 3600 * 1_000_000, stepUs: 300_000 }).map((e, i) =>
    i === 100 || i === 2 * G + 500 ? { ...e, message: `${e.message} marker` } : e,
  );
}

/** Events whose messages hold `token` as a whole token, counted over the generated events (the oracle). */
function oracle(token: string): number {
  return events().filter((e) =>
    e.message
      .toLowerCase()
      .split(/[^a-z0-9_]+/)
      .includes(token),
  ).length;
}

describe('granule token filters', () => {
  let s: TestStorage;
  before(async () => {
    s = await openStorage();
    await s.engine.writer.write(events(), { wait: true });
    await s.engine.flush();
  });
  after(() => s.close());

  /** What a scan needing `tokens` reads, and how many of its rows hold them all. */
  const scan = (tokens: string[]) =>
    s.engine.scan({ envs: ['default'], indexes: null, requiredTokens: tokens, fields: [] }, async (rel, exec) => {
      const where = tokens
        .map((t) => `list_contains(regexp_split_to_array(lower(message), '[^a-z0-9_]+'), '${t}')`)
        .join(' AND ');
      const r = await exec(`SELECT count(*) FROM ${rel.sql} AS e WHERE ${where}`);
      return { candidates: rel.candidateEvents, matched: Number(r.rows[0][0]), sql: rel.sql };
    });

  it('gives a block one filter per granule, and every granule knows the tokens of its rows', () => {
    const [b] = s.engine.listBlocks();
    assert.equal(b.meta.count, N);
    assert.equal(b.granules?.rows, GRANULE_ROWS);
    assert.equal(b.granules?.blooms.length, Math.ceil(N / GRANULE_ROWS));
    // rows are sorted by time and the events are one per second: row i is event i
    events().forEach((e, i) => {
      const granule = b.granules!.blooms[Math.floor(i / GRANULE_ROWS)];
      for (const piece of tokenPieces(e.message))
        assert.ok(granule.mightContain(piece), `event ${i}: "${piece}" missing from its granule`);
    });
  });

  it('reads only the granule of a rare token, and finds what the oracle finds', async () => {
    const r = await scan([String(RARE)]);
    assert.equal(r.matched, oracle(String(RARE)));
    assert.equal(r.matched, 1);
    assert.equal(r.candidates, G);
    assert.ok(r.sql.includes(`(file_row_number BETWEEN ${G2_FIRST} AND ${G2_LAST})`), r.sql);
  });

  it('reads the granules of a token found in two of them, and only those', async () => {
    const r = await scan(['marker']);
    assert.equal(r.matched, oracle('marker'));
    assert.equal(r.matched, 2);
    assert.equal(r.candidates, 2 * GRANULE_ROWS);
    assert.ok(
      r.sql.includes(`file_row_number BETWEEN 0 AND ${G - 1} OR file_row_number BETWEEN ${G2_FIRST} AND ${G2_LAST}`),
      r.sql,
    );
  });

  it('drops the block when no granule may hold the token', async () => {
    const r = await scan(['nosuchtoken']);
    assert.deepEqual([r.candidates, r.matched], [0, 0]);
  });

  it('reads the whole block for a token in every granule', async () => {
    const r = await scan(['event']);
    assert.deepEqual([r.candidates, r.matched], [N, N]);
    assert.doesNotMatch(r.sql, /file_row_number/);
  });
});

describe('granule token filters across merges and older blocks', () => {
  it('gives a merged block its own granules, built from the merged file', async () => {
    const s = await openStorage();
    try {
      const all = events();
      for (let i = 0; i < 4; i++) {
        await s.engine.writer.write(all.slice((i * N) / 4, ((i + 1) * N) / 4), { wait: true });
        await s.engine.flush();
      }
      assert.equal(s.engine.listBlocks().length, 4);
      await s.engine.mergeRound(true);
      const [b] = s.engine.listBlocks();
      assert.equal(s.engine.listBlocks().length, 1);
      assert.equal(b.granules?.blooms.length, Math.ceil(N / GRANULE_ROWS));
      assert.ok(b.granules.blooms[2].mightContain('marker') && !b.granules.blooms[1].mightContain('marker'));
    } finally {
      await s.close();
    }
  });

  it('reads a block whose sidecar has one filter and no granules (written before them) whole, with the same answer', async () => {
    const s = await openStorage();
    await s.engine.writer.write(events(), { wait: true });
    await s.engine.flush();
    const [b] = s.engine.listBlocks();
    await s.close({ keep: true });
    // the sidecar of an older svc: one token filter over the whole block
    const meta = JSON.parse(readFileSync(b.sidecar, 'utf8'));
    const pieces = new Set(events().flatMap((e) => tokenPieces(e.message)));
    const bloom = Bloom.forCount(pieces.size);
    for (const p of pieces) bloom.addHash(tokenHash(p));
    delete meta.granules;
    meta.bloom = { m: bloom.m, b64: bloom.toBase64() };
    writeFileSync(b.sidecar, JSON.stringify(meta));
    const again = await openStorage({ dataDir: s.dataDir });
    try {
      const r = await again.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: ['marker'], fields: [] },
        async (rel, exec) => {
          const n = await exec(`SELECT count(*) FROM ${rel.sql} AS e WHERE contains(message, 'marker')`);
          return { candidates: rel.candidateEvents, matched: Number(n.rows[0][0]) };
        },
      );
      assert.deepEqual(r, { candidates: N, matched: 2 });
      const none = await again.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: ['nosuchtoken'], fields: [] },
        async (rel) => rel.candidateEvents,
      );
      assert.equal(none, 0, 'the old filter still skips the block');
    } finally {
      await again.close();
    }
  });
});
