import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, login, type HasUrl } from '../helpers/auth.js';
import { CLUSTER_ADMIN_PASSWORD, TestCluster, type StoreBackend } from '../helpers/cluster.js';
import type { ProcessServer } from '../helpers/process.js';

/** The control plane's promise to other nodes: a change is seen within this (spec: revocation is immediate on the node that made it). */
const SEEN_WITHIN_MS = 2000;
/** The assertion's margin: one poll step of the test itself. */
const POLL_MS = 100;

const me = async (node: HasUrl, secret: string) =>
  (await fetch(`${node.url}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } })).status;

/** Polls `check` every 100 ms for up to `withinMs`; answers how long it took to hold, or fails. */
async function measure(what: string, withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return Math.round(performance.now() - t0);
    if (performance.now() - t0 > withinMs) assert.fail(`${what} did not happen within ${withinMs} ms`);
    await sleep(POLL_MS);
  }
}

function assertSameStore(before: Map<string, Buffer>, after: Map<string, Buffer>): void {
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'the same files or objects');
  for (const [name, bytes] of before) assert.ok(bytes.equals(after.get(name)!), `${name} unchanged, byte for byte`);
}

/**
 * The control plane shared by real svc processes through one store (spec 1 and 5.11;
 * docs/decisions/0011-shared-store-several-nodes.md).
 * Runs the same cases against any StoreBackend: a directory (cluster-nodes.test.ts) or an S3 bucket.
 */
export function clusterCases(backend: StoreBackend): void {
  describe(`two svc processes sharing ${backend.name}`, () => {
    let cluster: TestCluster;
    let a: ProcessServer;
    let b: ProcessServer;
    let tokenA: string;
    let tokenB: string;
    before(async () => {
      cluster = await TestCluster.create(backend);
      // both at once on an empty store: one of them creates the control plane and the admin
      [a, b] = await Promise.all([cluster.start(), cluster.start()]);
      [tokenA, tokenB] = await Promise.all([
        login(a, 'admin', CLUSTER_ADMIN_PASSWORD),
        login(b, 'admin', CLUSTER_ADMIN_PASSWORD),
      ]);
    });
    after(async () => cluster?.dispose());

    it('lose no control-plane write when each creates 20 API keys at the same moment', async () => {
      const create = (node: ProcessServer, token: string, name: string) =>
        call(node, 'POST', '/api/admin/api-keys', {
          token,
          body: { name, scopes: ['standard'] },
          expect: 201,
        }) as Promise<{ secret: string }>;
      const names = Array.from({ length: 20 }, (_, i) => [`a-${i}`, `b-${i}`]).flat();
      const created = await Promise.all(
        names.map((n) => (n.startsWith('a') ? create(a, tokenA, n) : create(b, tokenB, n))),
      );
      const listed = async (node: ProcessServer, token: string) =>
        ((await call(node, 'GET', '/api/admin/api-keys', { token })) as { apiKeys: { name: string }[] }).apiKeys
          .map((k) => k.name)
          .sort();
      for (const [node, token] of [
        [a, tokenA],
        [b, tokenB],
      ] as const) {
        await measure('all 40 keys listed', 3000, async () => (await listed(node, token)).length === 40);
        assert.deepEqual(await listed(node, token), [...names].sort());
      }
      for (const { secret } of created) assert.deepEqual([await me(a, secret), await me(b, secret)], [200, 200]);
    });

    it(`refuses on one node, within ${SEEN_WITHIN_MS / 1000} s, a key deleted or disabled on the other`, async (t) => {
      for (const [round, how] of [
        [1, 'delete'],
        [2, 'disable'],
        [3, 'delete'],
        [4, 'disable'],
      ] as const) {
        const [from, fromToken, to] = round % 2 ? [a, tokenA, b] : [b, tokenB, a];
        const key = (await call(from, 'POST', '/api/admin/api-keys', {
          token: fromToken,
          body: { name: `revoke-${round}`, scopes: ['standard'] },
          expect: 201,
        })) as { id: string; secret: string };
        await measure('the other node accepting the new key', 3000, async () => (await me(to, key.secret)) === 200);
        if (how === 'delete') await call(from, 'DELETE', `/api/admin/api-keys/${key.id}`, { token: fromToken });
        else await call(from, 'POST', `/api/admin/api-keys/${key.id}/disable`, { token: fromToken });
        // immediate on the node that made the change
        assert.equal(await me(from, key.secret), 401);
        const delay = await measure(
          `the other node refusing the ${how}d key`,
          3000,
          async () => (await me(to, key.secret)) === 401,
        );
        t.diagnostic(`key ${how}d on one node refused on the other after ${delay} ms`);
        assert.ok(delay <= SEEN_WITHIN_MS + POLL_MS, `refused after ${delay} ms, promised within ${SEEN_WITHIN_MS} ms`);
      }
    });
  });

  describe(`a node that does not match the cluster in ${backend.name} refuses to start and writes nothing`, () => {
    let cluster: TestCluster;
    before(async () => {
      cluster = await TestCluster.create(backend);
      const node = await cluster.start();
      const token = await login(node, 'admin', CLUSTER_ADMIN_PASSWORD);
      await call(node, 'POST', '/api/admin/api-keys', {
        token,
        body: { name: 'existing', scopes: ['standard'] },
        expect: 201,
      });
      await cluster.stopAll();
    });
    after(async () => cluster?.dispose());

    /** Starts a node with `env`, expects exit 1 with `message`, and the store exactly as it was. */
    const refused = async (env: Record<string, string>, ...messages: RegExp[]) => {
      const before = await cluster.store.snapshot();
      const res = await cluster.runToExit(env);
      assert.equal(res.code, 1, res.output);
      for (const m of messages) assert.match(res.output, m);
      assert.doesNotMatch(res.output, /svc listening/);
      assertSameStore(before, await cluster.store.snapshot());
    };

    it('another control key: cannot decrypt, names SVC_CONTROL_KEY_PATH', async () => {
      await refused(
        { SVC_CONTROL_KEY_PATH: cluster.newKeyFile('other-control.key') },
        /cannot decrypt the control plane/,
        /SVC_CONTROL_KEY_PATH/,
        /every node needs the same control key/,
      );
    });

    it('another JWT secret: names SVC_JWT_SECRET_PATH', async () => {
      await refused(
        { SVC_JWT_SECRET_PATH: cluster.newKeyFile('other-jwt.secret') },
        /SVC_JWT_SECRET_PATH/,
        /every node needs the same JWT secret/,
      );
    });

    it('no JWT secret file: names SVC_JWT_SECRET_PATH and creates none', async () => {
      const path = cluster.missingFile('jwt.secret');
      await refused({ SVC_JWT_SECRET_PATH: path }, /missing JWT secret/, /SVC_JWT_SECRET_PATH/);
      assert.equal(existsSync(path), false);
    });

    it('SVC_CONTROL_ENCRYPTION=off while the cluster encrypts: names SVC_CONTROL_ENCRYPTION', async () => {
      await refused(
        { SVC_CONTROL_ENCRYPTION: 'off' },
        /is encrypted but SVC_CONTROL_ENCRYPTION=off/,
        /every node needs the same SVC_CONTROL_ENCRYPTION/,
      );
    });

    it('while a node that matches still starts and sees the cluster', async () => {
      const node = await cluster.start();
      const token = await login(node, 'admin', CLUSTER_ADMIN_PASSWORD);
      const keys = (await call(node, 'GET', '/api/admin/api-keys', { token })) as { apiKeys: { name: string }[] };
      assert.deepEqual(
        keys.apiKeys.map((k) => k.name),
        ['existing'],
      );
      await cluster.stopAll();
    });
  });

  describe(`nodes with SVC_CONTROL_ENCRYPTION=off sharing ${backend.name}`, () => {
    let cluster: TestCluster;
    before(async () => {
      cluster = await TestCluster.create(backend, { SVC_CONTROL_ENCRYPTION: 'off' });
      await cluster.start();
      await cluster.stopAll();
    });
    after(async () => cluster?.dispose());

    it('refuse a node with SVC_CONTROL_ENCRYPTION=on, which would encrypt the control plane away from them', async () => {
      const before = await cluster.store.snapshot();
      const res = await cluster.runToExit({ SVC_CONTROL_ENCRYPTION: 'on' });
      assert.equal(res.code, 1, res.output);
      assert.match(res.output, /stored in clear text/);
      assert.match(res.output, /every node needs the same SVC_CONTROL_ENCRYPTION setting/);
      assertSameStore(before, await cluster.store.snapshot());
    });
  });
}
