import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { StoreConflict, StoreUnavailable } from '../../src/shared-store/object-store.js';
import { describeObjectStore } from './conformance.js';
import {
  emptyStore,
  gatewaySkipReason,
  openTestStore,
  s3Server,
  s3SkipReason,
  startGateway,
  uniquePrefix,
  type Gateway,
} from '../helpers/s3.js';

describeObjectStore(
  "an S3 bucket (Ceph's RADOS Gateway)",
  async () => {
    const store = await openTestStore();
    return {
      store,
      close: async () => {
        await emptyStore(store);
        store.close();
      },
    };
  },
  { skip: s3SkipReason() },
);

/** Every key in the bucket under `prefix`, as the bucket itself lists them. */
async function rawKeys(prefix: string): Promise<string[]> {
  const s = s3Server();
  const client = new S3Client({ endpoint: s.endpoint, region: s.region, forcePathStyle: true });
  try {
    const res = await client.send(new ListObjectsV2Command({ Bucket: s.bucket, Prefix: prefix }));
    return (res.Contents ?? []).map((o) => o.Key!);
  } finally {
    client.destroy();
  }
}

describe('an S3 bucket as the shared store', { skip: s3SkipReason() }, () => {
  it('keeps every key under its prefix and leaves no probe object behind', async (t) => {
    const prefix = uniquePrefix('prefix');
    const store = await openTestStore({ prefix });
    const sibling = await openTestStore({ prefix: `${prefix}-sibling` });
    try {
      t.diagnostic(`the server compares If-Match with ${store.ifMatchForm} ETags`);
      await store.put('nodes/n1/manifest.json', Buffer.from('{}'));
      await sibling.put('nodes/n2/manifest.json', Buffer.from('{}'));
      assert.deepEqual(await rawKeys(`${prefix}/`), [`${prefix}/nodes/n1/manifest.json`]);
      assert.deepEqual(
        (await store.list('')).map((o) => o.key),
        ['nodes/n1/manifest.json'],
      );
      assert.deepEqual(
        (await sibling.list('nodes/')).map((o) => o.key),
        ['nodes/n2/manifest.json'],
      );
    } finally {
      await emptyStore(store);
      await emptyStore(sibling);
      store.close();
      sibling.close();
    }
  });

  it('pages through listings longer than one answer', async () => {
    const store = await openTestStore();
    try {
      const keys = Array.from({ length: 1003 }, (_, i) => `many/${String(i).padStart(4, '0')}`);
      for (let i = 0; i < keys.length; i += 50)
        await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, Buffer.from(k))));
      assert.deepEqual(
        (await store.list('many/')).map((o) => o.key),
        keys,
      );
    } finally {
      await emptyStore(store);
      store.close();
    }
  });
});

describe('an S3 store whose gateway goes away', { skip: gatewaySkipReason() }, () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway?.stop();
  });

  it('carries a write over a gateway restart by retrying', async () => {
    let retries = 0;
    const store = await openTestStore({ endpoint: gateway.endpoint, retry: { onRetry: () => retries++ } });
    try {
      await gateway.stop();
      const written = store.put('doc', Buffer.from('through the restart'), { ifAbsent: true });
      await new Promise((r) => setTimeout(r, 1500));
      await gateway.start();
      const version = await written;
      assert.ok(retries > 0);
      assert.deepEqual(await store.get('doc'), { data: Buffer.from('through the restart'), version });
    } finally {
      await emptyStore(store);
      store.close();
    }
  });

  it('answers StoreUnavailable after its retries while the gateway stays down', async () => {
    let retries = 0;
    const store = await openTestStore({
      endpoint: gateway.endpoint,
      retry: { attempts: 3, baseDelayMs: 50, onRetry: () => retries++ },
    });
    try {
      await gateway.stop();
      await assert.rejects(
        store.put('doc', Buffer.from('x')),
        (e) => e instanceof StoreUnavailable && /ECONNREFUSED/.test(e.message),
      );
      assert.equal(retries, 2);
      await assert.rejects(store.list(''), StoreUnavailable);
    } finally {
      await gateway.start();
      await emptyStore(store);
      store.close();
    }
  });

  it('answers StoreUnavailable, not a hang, when the gateway stops answering', { timeout: 30_000 }, async () => {
    const store = await openTestStore({
      endpoint: gateway.endpoint,
      retry: { attempts: 2, baseDelayMs: 50, idleTimeoutMs: 500 },
    });
    try {
      await store.put('doc', Buffer.from('x'));
      gateway.freeze();
      await assert.rejects(store.get('doc'), (e) => e instanceof StoreUnavailable && /timed out/.test(e.message));
    } finally {
      gateway.thaw();
      await emptyStore(store);
      store.close();
    }
  });
});

/**
 * A TCP relay to the real gateway that, once armed, cuts the connection instead of relaying the
 * answer to the next PutObject: the write lands, and its writer never hears so.
 */
async function relayThatLosesAPutAnswer(
  target: string,
): Promise<{ endpoint: string; arm(): void; cuts(): number; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  let armed = false;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((down) => {
    const up = connect(Number(port), hostname);
    sockets.add(down).add(up);
    let cut = false;
    down.on('data', (chunk: Buffer) => {
      if (armed && chunk.subarray(0, 4).toString() === 'PUT ') {
        armed = false;
        cut = true;
        cuts++;
      }
      up.write(chunk);
    });
    up.on('data', (chunk: Buffer) => {
      if (cut) down.destroy();
      else down.write(chunk);
    });
    down.on('close', () => up.destroy());
    up.on('close', () => down.destroy());
    down.on('error', () => {});
    up.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    arm: () => void (armed = true),
    cuts: () => cuts,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("an S3 store's conditional write whose answer is lost", { skip: s3SkipReason() }, () => {
  for (const [name, cond] of [
    ['if-absent', 'absent'],
    ['if-version', 'version'],
  ] as const) {
    it(`reports an ${name} write that landed as written, not as a conflict with itself`, async () => {
      const relay = await relayThatLosesAPutAnswer(s3Server().endpoint);
      const store = await openTestStore({ endpoint: relay.endpoint });
      try {
        const v1 = cond === 'version' ? await store.put('lease', Buffer.from('node 1')) : undefined;
        relay.arm();
        const v2 = await store.put('lease', Buffer.from('node 2'), v1 ? { ifVersion: v1 } : { ifAbsent: true });
        assert.equal(relay.cuts(), 1);
        assert.deepEqual(await store.get('lease'), { data: Buffer.from('node 2'), version: v2 });
        await assert.rejects(
          store.put('lease', Buffer.from('node 3'), v1 ? { ifVersion: v1 } : { ifAbsent: true }),
          StoreConflict,
        );
      } finally {
        await emptyStore(store);
        store.close();
        await relay.close();
      }
    });
  }
});
