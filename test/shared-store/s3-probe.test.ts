import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { StoreUnavailable } from '../../src/shared-store/object-store.js';
import { S3Store, type S3StoreOptions } from '../../src/shared-store/s3-store.js';
import { StoreUnsupported } from '../../src/shared-store/s3-probe.js';
import { freePort } from '../helpers/ports.js';

/**
 * The probe against servers no real S3 is: these run everywhere, without Ceph. A fake is right
 * here and only here: a server that ignores conditional writes, or wants a quoted If-Match, is
 * what the probe must recognise, and none is at hand to run.
 */

interface FakeRules {
  ifNoneMatch: boolean;
  /** How If-Match is kept: ignored, or compared with the bare or the quoted ETag. */
  ifMatch: 'ignored' | 'bare' | 'quoted';
}

/** An S3-ish server keeping objects in memory: PUT (with the rules' conditions) and DELETE, path-style. */
async function fakeS3(
  rules: FakeRules,
): Promise<{ endpoint: string; requests: string[]; objects: Map<string, string>; close(): Promise<void> }> {
  const objects = new Map<string, string>();
  const requests: string[] = [];
  const answer = (res: ServerResponse, status: number, headers: Record<string, string> = {}, body = '') =>
    res.writeHead(status, headers).end(body);
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
      requests.push(`${req.method} ${path}`);
      if (req.method === 'DELETE') {
        objects.delete(path);
        return answer(res, 204);
      }
      if (req.method !== 'PUT') return answer(res, 405);
      const etag = createHash('md5').update(Buffer.concat(chunks)).digest('hex');
      const current = objects.get(path);
      const ifMatch = req.headers['if-match'];
      const refused =
        (rules.ifNoneMatch && req.headers['if-none-match'] === '*' && current !== undefined) ||
        (rules.ifMatch !== 'ignored' &&
          ifMatch !== undefined &&
          ifMatch !== (rules.ifMatch === 'quoted' ? `"${current}"` : current));
      if (refused)
        return answer(
          res,
          412,
          { 'content-type': 'application/xml' },
          '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
        );
      objects.set(path, etag);
      answer(res, 200, { etag: `"${etag}"` });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    objects,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const options = (endpoint: string, more: Partial<S3StoreOptions> = {}): S3StoreOptions => ({
  bucket: 'svc-probe-test',
  prefix: 'cluster/a',
  endpoint,
  region: 'us-east-1',
  pathStyle: true,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  ...more,
});

describe("the S3 store's check of conditional writes", () => {
  it('refuses a server that ignores If-None-Match and If-Match, and says why', async () => {
    const fake = await fakeS3({ ifNoneMatch: false, ifMatch: 'ignored' });
    try {
      await assert.rejects(S3Store.open(options(fake.endpoint)), (e) => {
        assert.ok(e instanceof StoreUnsupported);
        assert.match(
          e.message,
          /^the store at s3:\/\/svc-probe-test\/cluster\/a does not honour conditional writes \(If-None-Match\/If-Match\): several svc nodes need them; AWS S3, MinIO and Ceph 16\+ do/,
        );
        return true;
      });
    } finally {
      await fake.close();
    }
  });

  it('refuses a server that keeps to If-None-Match but ignores If-Match', async () => {
    const fake = await fakeS3({ ifNoneMatch: true, ifMatch: 'ignored' });
    try {
      await assert.rejects(
        S3Store.open(options(fake.endpoint)),
        /does not honour conditional writes.*If-Match did not keep to the ETag/,
      );
    } finally {
      await fake.close();
    }
  });

  it('probes under the prefix with a few requests and deletes its object', async () => {
    const fake = await fakeS3({ ifNoneMatch: true, ifMatch: 'bare' });
    try {
      const store = await S3Store.open(options(fake.endpoint));
      store.close();
      assert.equal(store.ifMatchForm, 'bare');
      assert.ok(fake.requests.length <= 7, fake.requests.join('\n'));
      assert.ok(
        fake.requests.every(
          (r) =>
            r.startsWith('PUT /svc-probe-test/cluster/a/.svc-probe/') ||
            r.startsWith('DELETE /svc-probe-test/cluster/a/.svc-probe/'),
        ),
        fake.requests.join('\n'),
      );
      assert.equal(fake.objects.size, 0);
    } finally {
      await fake.close();
    }
  });

  it('sends If-Match quoted to a server that compares quoted ETags', async () => {
    const fake = await fakeS3({ ifNoneMatch: true, ifMatch: 'quoted' });
    try {
      const store = await S3Store.open(options(fake.endpoint));
      assert.equal(store.ifMatchForm, 'quoted');
      const v1 = await store.put('doc', Buffer.from('1'));
      await store.put('doc', Buffer.from('2'), { ifVersion: v1 });
      store.close();
    } finally {
      await fake.close();
    }
  });
});

/** A TCP server that accepts connections and never answers (a hung gateway, a black-holed network). */
async function silentServer(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((s) => void sockets.add(s.on('error', () => {})));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('an S3 store that cannot be reached', () => {
  it('answers StoreUnavailable after its retries when nothing listens', async () => {
    const port = await freePort();
    let retries = 0;
    await assert.rejects(
      S3Store.open(
        options(`http://127.0.0.1:${port}`, { retry: { attempts: 3, baseDelayMs: 10, onRetry: () => retries++ } }),
      ),
      (e) =>
        e instanceof StoreUnavailable &&
        /s3:\/\/svc-probe-test\/cluster\/a unavailable: cannot open: .*ECONNREFUSED/.test(e.message),
    );
    assert.equal(retries, 2);
  });

  it('answers StoreUnavailable, not a hang, when the server never answers', { timeout: 20_000 }, async () => {
    const silent = await silentServer();
    try {
      await assert.rejects(
        S3Store.open(options(silent.endpoint, { retry: { attempts: 2, baseDelayMs: 10, idleTimeoutMs: 300 } })),
        (e) => e instanceof StoreUnavailable && /timed out/.test(e.message),
      );
    } finally {
      await silent.close();
    }
  });
});
