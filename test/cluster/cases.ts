import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIngestToken } from '../helpers/auth.js';
import {
  api,
  clusterNodes,
  countAndDistinct,
  events,
  eventually,
  ingest,
  stats,
  stopAll,
  type Node,
  type StoreFixture,
} from './nodes.js';

const DAY_MS = 86_400_000;

/** A node as GET /api/admin/nodes lists it. */
interface NodeRow {
  id: string;
  self: boolean;
  state: string;
  lagSecs: number;
  publishedBlocks: number;
  publishedBytes: number;
  cacheBytes: number;
  retired?: boolean;
}

/**
 * Three real svc processes on one store (docs/storage.md, "Several nodes"): each its own data dir,
 * one SVC_STORE, one control key and JWT secret; syncing every second and sealing every 300 ms.
 * The cases run in order on one cluster (node a is killed and restarted, node b stopped on the
 * way). `open` gives the store: a directory (dir-store.test.ts) or, later, an S3 bucket.
 */
export function describeCluster(name: string, open: () => Promise<StoreFixture>): void {
  describe(`three nodes on ${name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
    let store: StoreFixture;
    let a: Node, b: Node, c: Node;
    let token: string;

    before(async () => {
      store = await open();
      [a, b, c] = clusterNodes(dir, store);
      // one after the other: the first creates the control plane the others read
      for (const n of [a, b, c]) await n.start();
      token = await createIngestToken(a.srv!, { env: 'default' });
    });
    after(async () => {
      await stopAll([a, b, c], dir);
      await store?.close();
    });

    it('shows events ingested on one node to a search on another within a sync and a seal, exactly once', async () => {
      const sent = new Map<string, number>();
      for (let batch = 0; batch < 10; batch++) {
        const events = Array.from({ length: 100 }, (_, i) => ({
          seq: batch * 100 + i,
          host: `h${(batch * 100 + i) % 3}`,
          message: `visible ${batch} ${i}`,
        }));
        for (const e of events) sent.set(e.host, (sent.get(e.host) ?? 0) + 1);
        assert.ok(await ingest(a, token, 'visible', events));
      }
      const expected = [...sent].sort().map(([host, n]) => ({ host, count: n }));
      const t0 = Date.now();
      const byHost = async (n: Node) =>
        (await stats(n, '* | stats count by host | sort host', 'default', 'visible')).map((r) => ({
          host: r.host,
          count: Number(r.count),
        }));
      await eventually(
        'node c seeing every event of node a',
        15,
        () => byHost(c),
        (r) => JSON.stringify(r) === JSON.stringify(expected),
      );
      console.log(`# visible on c ${Date.now() - t0} ms after the last acknowledgement`);
      assert.deepEqual(await countAndDistinct(c, 'default', 'visible'), { count: 1000, distinct: 1000 });
      // node b syncs on its own timer: within one more interval
      await eventually(
        'node b seeing every event of node a',
        5,
        () => byHost(b),
        (r) => JSON.stringify(r) === JSON.stringify(expected),
      );
      assert.deepEqual(await countAndDistinct(a, 'default', 'visible'), { count: 1000, distinct: 1000 });
    });

    it('never shows a block twice or loses one while the writing node merges', async () => {
      let acked = 0;
      let done = false;
      const t0 = Date.now();
      const writing = (async () => {
        for (let batch = 0; Date.now() < t0 + 6000; batch++) {
          const events = Array.from({ length: 50 }, (_, i) => ({ seq: batch * 50 + i, message: `merge ${batch}` }));
          if (await ingest(a, token, 'merging', events)) acked += 50;
          await sleep(40);
        }
        done = true;
      })();
      let previous = 0;
      let searches = 0;
      let sawSwap = false;
      while (!done) {
        const ackedBefore = acked;
        const r = await countAndDistinct(c, 'default', 'merging');
        assert.equal(r.count, r.distinct, `search ${searches}: ${r.count - r.distinct} events seen twice`);
        assert.ok(
          r.count >= previous,
          `search ${searches}: ${previous - r.count} events lost (had ${previous}, now ${r.count})`,
        );
        assert.ok(
          r.count <= acked,
          `search ${searches}: more events (${r.count}) than acknowledged (${ackedBefore}..${acked})`,
        );
        previous = r.count;
        searches++;
        const m = await store.store.get('nodes/a/manifest.json');
        if (m && (JSON.parse(m.data.toString()) as { removed: unknown[] }).removed.length > 0) sawSwap = true;
      }
      await writing;
      await eventually(
        'node c seeing every merged event',
        15,
        () => countAndDistinct(c, 'default', 'merging'),
        (r) => r.count === acked,
      );
      assert.deepEqual(await countAndDistinct(c, 'default', 'merging'), { count: acked, distinct: acked });
      assert.ok(searches >= 10, `only ${searches} searches ran during the merges`);
      assert.ok(sawSwap, 'node a published at least one merge swap meanwhile');
    });

    it('loses nothing during a store outage, tells it once, and recovers by itself', async (t) => {
      await Promise.all([a.token(), c.token()]);
      const outageAt = Date.now();
      const restore = await store.outage();
      let acked = 0;
      try {
        for (let batch = 0; batch < 5; batch++) {
          const events = Array.from({ length: 100 }, (_, i) => ({ seq: batch * 100 + i, message: `outage ${batch}` }));
          assert.ok(await ingest(a, token, 'outage', events), 'ingest goes on: the WAL and the blocks are local');
          acked += 100;
          await sleep(200);
        }
        // S3 calls retry with backoff for ~15 s before a node calls the store unavailable
        const health = await eventually(
          'node a saying the store is down',
          10 + (store.outageSecs ?? 0),
          async () => (await fetch(`${a.url}/api/health`)).json(),
          (h) => h.status === 'degraded',
        );
        assert.equal(health.store.available, false);
        await eventually(
          'node a serving its own events',
          5,
          () => countAndDistinct(a, 'default', 'outage'),
          (r) => r.count === acked,
        );
      } finally {
        await restore();
      }
      const back = Date.now();
      await eventually(
        'node c seeing the events held back',
        30,
        () => countAndDistinct(c, 'default', 'outage'),
        (r) => r.count === acked,
      );
      t.diagnostic(
        `the store away ${((back - outageAt) / 1000).toFixed(1)} s; its events on node c ${Date.now() - back} ms after it came back`,
      );
      assert.deepEqual(await countAndDistinct(c, 'default', 'outage'), { count: acked, distinct: acked });
      await eventually(
        'node a healthy again',
        10,
        async () => (await fetch(`${a.url}/api/health`)).json(),
        (h) => h.status === 'ok',
      );
      const q = `event=storage_problem kind=store_unavailable node=a earliest=${new Date(outageAt).toISOString()}`;
      const told = await eventually(
        'node a recording the outage',
        10,
        () => events(a, q, '_system', '_svclogs'),
        (e) => e.length >= 2,
      );
      const resolved = told.map((e) => String(e.fields.resolved ?? false)).sort();
      assert.deepEqual(
        resolved,
        ['false', 'true'],
        `once when it went, once when it came back: ${JSON.stringify(told.map((e) => e.message))}`,
      );
    });

    it('shows every acknowledged event exactly once on every node after a kill -9 mid-ingest', async () => {
      const acked = new Set<number>();
      let sent = 0;
      let next = 0;
      const client = async () => {
        for (;;) {
          const b = next++;
          sent++;
          const events = Array.from({ length: 200 }, (_, i) => ({
            batch: b,
            seq: b * 200 + i,
            message: `kill ${b} ${i}`,
          }));
          const ok = await ingest(a, token, 'killed', events).catch(() => undefined);
          if (ok === undefined) return;
          if (ok) acked.add(b);
        }
      };
      const streaming = Promise.all([client(), client(), client(), client()]);
      await eventually(
        'some batches acknowledged',
        20,
        async () => acked.size,
        (n) => n >= 30,
      );
      await a.kill();
      await streaming;
      assert.ok(sent > acked.size, 'requests were in flight at the kill');
      await a.start();
      for (const n of [a, b, c]) {
        const byBatch = async () =>
          new Map(
            (await stats(n, '* | stats count, dc(seq) by batch', 'default', 'killed')).map((r) => [
              Number(r.batch),
              [Number(r.count), Number(r['dc(seq)'])],
            ]),
          );
        const found = await eventually(`node ${n.id} seeing every acknowledged batch`, 20, byBatch, (m) =>
          [...acked].every((x) => m.get(x)?.[0] === 200),
        );
        for (const x of acked) assert.deepEqual(found.get(x), [200, 200], `node ${n.id}, acknowledged batch ${x}`);
        for (const [x, [count, distinct]] of found)
          assert.equal(count, distinct, `node ${n.id}: batch ${x} has events twice`);
      }
    });

    it('sweeps an expired block of a node that is down, from any node', async () => {
      assert.equal((await api(a, 'POST', '/api/admin/envs', { name: 'ret', retentionDays: 30 })).status, 201);
      const retToken = await eventually(
        'the ingest token reaching node b',
        5,
        () => createIngestToken(b.srv!, { env: 'ret' }),
        () => true,
      );
      const old = Date.now() - 10 * DAY_MS;
      assert.ok(
        await ingest(
          b,
          retToken,
          'aged',
          Array.from({ length: 100 }, (_, i) => ({
            seq: i,
            _time: new Date(old + i * 1000).toISOString(),
            message: `old ${i}`,
          })),
        ),
      );
      assert.ok(
        await ingest(
          b,
          retToken,
          'fresh',
          Array.from({ length: 20 }, (_, i) => ({ seq: i, message: `new ${i}` })),
        ),
      );
      // both other nodes hold b's blocks before it goes: c must then drop the swept one, not merely never see it
      for (const n of [a, c])
        await eventually(
          `node ${n.id} seeing node b's events`,
          15,
          () => stats(n, '* | stats count', 'ret', '*'),
          (r) => Number(r[0]?.count) === 120,
        );
      await b.stop();
      assert.equal((await api(a, 'PATCH', '/api/admin/envs/ret', { retentionDays: 5 })).status, 200);

      const gc = await api(a, 'POST', '/api/admin/gc');
      assert.equal(gc.status, 200, JSON.stringify(gc.body));
      const gone = (gc.body.blocks as { node: string; env: string; index: string; events: number }[]).filter(
        (x) => x.env === 'ret',
      );
      assert.deepEqual([...new Set(gone.map((x) => `${x.node}/${x.index}`))], ['b/aged']);
      assert.equal(
        gone.reduce((n, x) => n + x.events, 0),
        100,
      );
      assert.deepEqual(await countAndDistinct(a, 'ret', 'aged'), { count: 0, distinct: 0 });
      await eventually(
        'node c dropping the swept block',
        10,
        () => countAndDistinct(c, 'ret', 'aged'),
        (r) => r.count === 0,
      );
      assert.deepEqual(await countAndDistinct(c, 'ret', 'fresh'), { count: 20, distinct: 20 });
      const m = JSON.parse((await store.store.get('nodes/b/manifest.json'))!.data.toString()) as {
        blocks: { index: string }[];
      };
      assert.ok(m.blocks.length > 0 && m.blocks.every((e) => e.index !== 'aged'));
    });

    it('lists the nodes and retires one that is stopped, whose blocks stay readable', async () => {
      const list = await eventually(
        'every node in the list',
        5,
        () => api(c, 'GET', '/api/admin/nodes'),
        (r) => r.body?.nodes?.length === 3,
      );
      const byId = new Map<string, NodeRow>(list.body.nodes.map((n: NodeRow) => [n.id, n]));
      assert.deepEqual([...byId.keys()], ['a', 'b', 'c']);
      assert.equal(byId.get('c')!.self, true);
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => byId.get(id)!.state),
        ['running', 'stopped', 'running'],
      );
      for (const id of ['a', 'c'])
        assert.ok(byId.get(id)!.lagSecs < 10, `node ${id} syncs: ${JSON.stringify(byId.get(id))}`);
      assert.ok(byId.get('a')!.publishedBlocks > 0 && byId.get('a')!.publishedBytes > 0);
      assert.ok(byId.get('c')!.cacheBytes > 0, "node c read node a's blocks through its cache");

      assert.equal((await api(c, 'POST', '/api/admin/nodes/a/retire')).status, 409, 'a running node is not retired');
      assert.equal((await api(c, 'POST', '/api/admin/nodes/zz/retire')).status, 404);
      const retired = await api(a, 'POST', '/api/admin/nodes/b/retire');
      assert.equal(retired.status, 200, JSON.stringify(retired.body));
      assert.equal(retired.body.node.retired, true);
      const again = await api(c, 'GET', '/api/admin/nodes');
      assert.equal(again.body.nodes.find((n: NodeRow) => n.id === 'b').retired, true);
      assert.deepEqual(await countAndDistinct(c, 'ret', 'fresh'), { count: 20, distinct: 20 });
    });
  });
}
