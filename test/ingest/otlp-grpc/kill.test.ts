import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../../helpers/process.js';
import { freePort } from '../../helpers/ports.js';
import { createApiKey, createEnv, createIngestToken, TEST_ADMIN_PASSWORD } from '../../helpers/auth.js';
import { searchEvents } from '../helpers/e2e.js';
import { grpcExport, sdkRecords } from './exporter.js';

describe('OTLP/gRPC and kill -9', () => {
  it('keeps a batch whose Export was acknowledged when svc is killed right after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-grpc-kill-'));
    const port = await freePort();
    const env = {
      SVC_DATA_DIR: dir,
      SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      SVC_OTLP_GRPC_LISTEN: `127.0.0.1:${port}`,
    };
    try {
      const first = await startServerProcess(env);
      await createEnv(first, 'shipping');
      const token = await createIngestToken(first, { env: 'shipping' });
      const records = await sdkRecords((log) => {
        for (let i = 0; i < 50; i++) log.emit({ body: `grpc acked before kill ${i}`, attributes: { n: i } });
      });
      const answer = await grpcExport(`127.0.0.1:${port}`, token, records);
      assert.equal(answer.ok, true, String(answer.error));
      const exited = new Promise((r) => first.child.once('exit', r));
      first.child.kill('SIGKILL');
      await exited;

      const second = await startServerProcess(env);
      try {
        const key = await createApiKey(second, { scopes: ['standard'] });
        const stored = await searchEvents(second, key, { q: '"grpc acked before kill"', index: 'otelgrpc' });
        assert.deepEqual(
          stored.map((x) => Number(x.fields.n)).sort((a, b) => a - b),
          [...Array(50).keys()],
        );
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
