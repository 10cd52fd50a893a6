import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY_US } from '../../src/storage/partition.js';
import { MAX_PROMOTED_FIELDS } from '../../src/storage/blocks/block-writer.js';
import { ident } from '../../src/storage/sql-quote.js';
import { fieldColumn } from '../../src/events/field-column.js';
import { T0, countWhere, makeEvents, openStorage } from './helpers.js';

describe('sealing and the scan relation', () => {
  it('makes events searchable as soon as the write resolves, before any seal', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(10), { wait: true });
      assert.equal(s.engine.stats().blocks, 0);
      assert.equal(await countWhere(s.engine, "host = 'host-1'"), 3);
    } finally {
      await s.close();
    }
  });

  it('seals one ZSTD Parquet block per env/index/day, in block order, with a sidecar', async () => {
    const s = await openStorage();
    try {
      // written newest first, spanning two days, two indexes
      const evs = [
        ...makeEvents(50, { startUs: T0 + DAY_US, tag: 'd2' }),
        ...makeEvents(30, { tag: 'd1' }),
        ...makeEvents(5, { index: 'web', tag: 'w' }),
      ].reverse();
      await s.engine.writer.write(evs, { wait: true });
      await s.engine.flush();
      const blocks = s.engine.listBlocks().sort((a, b) => a.path.localeCompare(b.path));
      assert.deepEqual(
        blocks.map((b) => [b.meta.env, b.meta.index, b.meta.day, b.meta.count]),
        [
          ['default', 'main', '2026-01-10', 30],
          ['default', 'main', '2026-01-11', 50],
          ['default', 'web', '2026-01-10', 5],
        ],
      );
      const b = blocks[0];
      assert.match(b.path, new RegExp(`blocks/default/main/2026-01-10/${s.engine.nodeId}-\\d+\\.parquet$`));
      const side = JSON.parse(readFileSync(b.sidecar, 'utf8'));
      assert.equal(side.count, 30);
      assert.equal(side.minUs, T0);
      assert.deepEqual(side.fields.map((f: { name: string; type: string }) => [f.name, f.type]).sort(), [
        ['even', 'BOOLEAN'],
        ['ratio', 'DOUBLE'],
        ['seq', 'BIGINT'],
        ['tag', 'VARCHAR'],
      ]);
      assert.equal(typeof side.walSeg, 'number');
      assert.ok(!existsSync(join(s.dataDir, 'wal', '000000000001.ndjson')), 'sealed WAL segment deleted');
      const meta = await s.engine.scan(
        { envs: ['default'], indexes: ['main'], requiredTokens: [], fields: [] },
        (_r, exec) => exec(`SELECT compression FROM parquet_metadata('${b.path}') LIMIT 1`),
      );
      assert.equal(meta.rows[0][0], 'ZSTD');
      // one row group: its rows go by source, host, time (alike lines side by side for ZSTD)
      const rows = await s.engine.scan(
        { envs: ['default'], indexes: ['main'], requiredTokens: [], fields: [] },
        (_r, exec) => exec(`SELECT source, host, epoch_us(_time) FROM read_parquet('${b.path}')`),
      );
      const keys = rows.rows.map((r) => [String(r[0]), String(r[1]), Number(r[2])] as const);
      const byKey = [...keys].sort((x, y) =>
        x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] !== y[1] ? (x[1] < y[1] ? -1 : 1) : x[2] - y[2],
      );
      assert.deepEqual(keys, byKey, 'rows sorted by source, host, time');
      const enc = await s.engine.scan(
        { envs: ['default'], indexes: ['main'], requiredTokens: [], fields: [] },
        (_r, exec) => exec(`SELECT encodings FROM parquet_metadata('${b.path}') WHERE path_in_schema = '_time'`),
      );
      assert.match(String(enc.rows[0][0]), /DELTA_BINARY_PACKED/, 'Parquet V2 delta-encodes _time');
    } finally {
      await s.close();
    }
  });

  it('answers counts that match what the test computes, over blocks plus live events', async () => {
    const s = await openStorage();
    try {
      const sealed = makeEvents(300, { tag: 'a' });
      await s.engine.writer.write(sealed, { wait: true });
      await s.engine.flush();
      const live = makeEvents(120, { tag: 'b', startUs: T0 + 500_000_000 });
      await s.engine.writer.write(live, { wait: true });
      const all = [...sealed, ...live];
      assert.equal(await countWhere(s.engine), all.length);
      assert.equal(await countWhere(s.engine, 'even'), all.filter((e) => e.fields.even).length);
      assert.equal(
        await countWhere(s.engine, 'seq >= 100 AND ratio < 50'),
        all.filter((e) => (e.fields.seq as number) >= 100 && (e.fields.ratio as number) < 50).length,
      );
      const from = T0 + 200_000_000;
      const to = T0 + 550_000_000;
      assert.equal(
        await countWhere(s.engine, 'true', { fromUs: from, toUs: to }),
        all.filter((e) => e.timeUs >= from && e.timeUs < to).length,
      );
      assert.equal(await countWhere(s.engine, 'true', { indexes: ['other'] }), 0);
      assert.equal(await countWhere(s.engine, 'true', { envs: ['prod'] }), 0);
      const byHost = await s.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: [], fields: [] },
        (rel, exec) => exec(`SELECT host, count(*)::INT FROM ${rel.sql} AS e GROUP BY host ORDER BY host`),
      );
      const expected = new Map<string, number>();
      for (const e of all) expected.set(e.host, (expected.get(e.host) ?? 0) + 1);
      assert.deepEqual(byHost.rows, [...expected].sort());
      const parts = s.engine.partitions();
      assert.deepEqual(
        parts.map((p) => [p.env, p.index, p.events]),
        [['default', 'main', 420]],
      );
    } finally {
      await s.close();
    }
  });

  it('skips blocks whose token filter proves a required token absent, and keeps those that may match', async () => {
    const s = await openStorage();
    try {
      await s.engine.writer.write(makeEvents(100, { tag: 'alpha' }), { wait: true });
      await s.engine.flush();
      await s.engine.writer.write(makeEvents(100, { tag: 'beta', startUs: T0 + DAY_US }), { wait: true });
      await s.engine.flush();
      const kept = (tokens: string[]) =>
        s.engine.scan(
          { envs: ['default'], indexes: null, requiredTokens: tokens, fields: [] },
          async (rel) => rel.candidateEvents,
        );
      assert.equal(await kept([]), 200);
      assert.equal(await kept(['alpha']), 100);
      assert.equal(await kept(['beta-7']), 100, 'a token with separators is checked piece by piece');
      assert.equal(await kept(['gamma']), 0);
      assert.equal(await countWhere(s.engine, "message LIKE '%alpha%'", { requiredTokens: ['alpha'] }), 100);
    } finally {
      await s.close();
    }
  });

  it('gives one column per field across blocks of different types, NULL where absent', async () => {
    const s = await openStorage();
    try {
      const e1 = makeEvents(10, { tag: 'one' }).map((e, i) => ({ ...e, fields: { code: i, only1: 'x' } }));
      await s.engine.writer.write(e1, { wait: true });
      await s.engine.flush();
      const e2 = makeEvents(10, { tag: 'two', startUs: T0 + DAY_US }).map((e) => ({ ...e, fields: { code: 'E42' } }));
      await s.engine.writer.write(e2, { wait: true });
      await s.engine.flush();
      await s.engine.writer.write(
        makeEvents(5, { tag: 'live' }).map((e) => ({ ...e, fields: { code: 7, onlyLive: true } })),
        { wait: true },
      );
      const r = await s.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: [], fields: '*' },
        async (rel, exec) => {
          assert.deepEqual(rel.fieldColumns, ['code', 'only1', 'onlyLive']);
          return exec(
            `SELECT typeof(code), count(*)::INT, count(only1)::INT, count(${ident(fieldColumn('onlyLive'))})::INT, count(*) FILTER (code = 'E42')::INT FROM ${rel.sql} AS e GROUP BY ALL`,
          );
        },
      );
      assert.deepEqual(r.rows, [['VARCHAR', 25, 10, 5, 10]]);
      const fields = s.engine.fields({ envs: ['default'], indexes: null });
      assert.deepEqual(
        fields.find((f) => f.name === 'code'),
        { name: 'code', type: 'string', events: 25 },
      );
      const named = await s.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: [], fields: ['missing'] },
        (rel, exec) => exec(`SELECT count(missing) FROM ${rel.sql} AS e`),
      );
      assert.equal(named.rows[0][0], 0);
    } finally {
      await s.close();
    }
  });

  it(`keeps at most ${MAX_PROMOTED_FIELDS} field columns per block and still exposes the rest`, async () => {
    const s = await openStorage();
    try {
      const evs = makeEvents(20).map((e, i) => {
        const fields: Record<string, number | string> = {};
        for (let f = 0; f < MAX_PROMOTED_FIELDS + 10; f++) fields[`f${f}`] = f === 0 ? i : `v${f}`;
        return { ...e, fields };
      });
      await s.engine.writer.write(evs, { wait: true });
      await s.engine.flush();
      const [b] = s.engine.listBlocks();
      assert.equal(b.meta.fields.filter((f) => f.promoted).length, MAX_PROMOTED_FIELDS);
      assert.equal(b.meta.hasExtra, true);
      const rare = b.meta.fields.find((f) => !f.promoted)!.name;
      const r = await s.engine.scan(
        { envs: ['default'], indexes: null, requiredTokens: [], fields: ['f0', rare] },
        (rel, exec) => exec(`SELECT sum(f0)::INT, count(${JSON.stringify(rare)})::INT FROM ${rel.sql} AS e`),
      );
      assert.deepEqual(r.rows, [[190, 20]]);
    } finally {
      await s.close();
    }
  });
});
