import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { rmSync } from 'node:fs';
import { startE2E, searchEvents, type E2E } from '../helpers/e2e.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { createApiKey, createEnv, createIngestToken } from '../../helpers/auth.js';
import { RetryInfo, RpcStatus } from '../../../src/ingest/otlp/logs-proto.js';
import { grpcExport, sdkRecords } from './exporter.js';

/** Waits (bounded) until the held writer queue holds at least `n` events. */
async function queued(srv: TestServer, n: number): Promise<void> {
  const start = Date.now();
  while (srv.deps.writer.queueDepth().queued < n && Date.now() - start < 5000)
    await new Promise((r) => setTimeout(r, 10));
}

describe('OTLP/gRPC on a full writer queue', () => {
  let e: E2E;
  let filler: Promise<Response>;
  before(async () => {
    e = await startE2E({ SVC_BLOCK_QUEUE_CAP: '5', SVC_TEST_HOLD_WRITER: '1', SVC_OTLP_GRPC_LISTEN: '127.0.0.1:0' });
    // native ingest waits for room: it fills the held queue and stays pending (as ../backpressure does)
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ message: `filler ${i}` })).join('\n');
    filler = fetch(`${e.srv.url}/api/ingest?index=filler`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/x-ndjson' },
      body: lines,
    });
    await queued(e.srv, 5);
  });
  after(async () => {
    e.srv.deps.storage.releaseWriter();
    await e.close();
  });

  it('answers RESOURCE_EXHAUSTED with a RetryInfo, and stores nothing of the refused batch', async () => {
    const records = await sdkRecords((log) => log.emit({ body: 'grpc during full queue' }));
    const answer = await grpcExport(`127.0.0.1:${e.srv.otlpGrpc!.port}`, e.token, records);
    assert.equal(answer.ok, false);
    assert.equal(answer.error?.code, status.RESOURCE_EXHAUSTED, String(answer.error));
    const bin = answer.error.metadata.get('grpc-status-details-bin')[0] as Buffer;
    const st = RpcStatus.toObject(RpcStatus.decode(bin), { longs: Number }) as {
      code: number;
      details: { typeUrl: string; value: Uint8Array }[];
    };
    assert.equal(st.code, status.RESOURCE_EXHAUSTED);
    assert.equal(st.details[0].typeUrl, 'type.googleapis.com/google.rpc.RetryInfo');
    const info = RetryInfo.toObject(RetryInfo.decode(st.details[0].value), { longs: Number }) as {
      retryDelay: { seconds: number };
    };
    assert.ok(info.retryDelay.seconds >= 1);

    e.srv.deps.storage.releaseWriter();
    assert.equal((await filler).status, 200);
    assert.equal((await searchEvents(e.srv, e.searchKey, { q: 'filler', index: 'filler' })).length, 20);
    assert.equal((await searchEvents(e.srv, e.searchKey, { q: '"grpc during full queue"' })).length, 0);
  });
});

describe('OTLP/gRPC at a stop', () => {
  it('lets an export in flight finish, acked and stored, and takes no new call once stopping', async () => {
    const env = { SVC_TEST_HOLD_WRITER: '1', SVC_OTLP_GRPC_LISTEN: '127.0.0.1:0' };
    const srv = await startTestServer(env, { keepData: true });
    try {
      await createEnv(srv, 'shipping');
      const token = await createIngestToken(srv, { env: 'shipping' });
      const address = `127.0.0.1:${srv.otlpGrpc!.port}`;
      const records = await sdkRecords((log) => log.emit({ body: 'grpc in flight at stop' }));
      // the writer is held: the batch sits in the queue and the call waits for it to be durable
      const inFlight = grpcExport(address, token, records);
      for (let t = Date.now(); srv.otlpGrpc!.inFlight() === 0 && Date.now() - t < 10_000;)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(srv.otlpGrpc!.inFlight(), 1, 'the export is in flight');
      const stopping = srv.close();
      const late = await grpcExport(address, token, records);
      assert.equal(late.ok, false);
      assert.equal(late.error?.code, status.UNAVAILABLE, String(late.error));
      srv.deps.storage.releaseWriter();
      const first = await inFlight;
      assert.equal(first.ok, true, String(first.error));
      await stopping;

      const again = await startTestServer({}, { dataDir: srv.dataDir });
      try {
        const key = await createApiKey(again, { scopes: ['standard'] });
        const stored = await searchEvents(again, key, { q: '"grpc in flight at stop"' });
        assert.equal(stored.length, 1);
      } finally {
        await again.close();
      }
    } finally {
      srv.deps.storage.releaseWriter();
      rmSync(srv.dataDir, { recursive: true, force: true });
    }
  });
});
