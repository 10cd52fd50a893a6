/**
 * OTLP/HTTP logs ingest benchmark: a real svc process, N concurrent clients posting pre-built
 * ExportLogsServiceRequest protobuf bodies (gzip by default, as the exporters send them) to /v1/logs.
 *
 *   node --import tsx bench/otlp.ts
 *   BENCH_EVENTS=500000 BENCH_BATCH=2000 BENCH_CONCURRENCY=4 BENCH_GZIP=0 node --import tsx bench/otlp.ts
 *
 * Data set: records with a string body (~100 bytes), 4 attributes, severity, trace/span ids, one
 * resource with service.name/host.name; one day of timestamps. Prints the same figures as es-bulk.
 */
import { gzipSync } from 'node:zlib';
import { ExportLogsServiceRequest } from '../src/ingest/otlp/logs-proto.js';
import { benchServer, cpuSecs, envInt, report, runLoad, storedCount } from './es-bulk.js';

const BASE_NS = BigInt(Date.UTC(2026, 10, 20)) * 1_000_000n;

function requestBody(start: number, n: number): Buffer {
  const logRecords = [];
  for (let i = start; i < start + n; i++) {
    logRecords.push({
      timeUnixNano: String(BASE_NS + BigInt(i % 86_400) * 1_000_000_000n + BigInt(i % 1000)),
      severityNumber: i % 10 === 0 ? 17 : 9,
      severityText: i % 10 === 0 ? 'ERROR' : 'INFO',
      body: {
        stringValue: `order ${i % 100000} processed in ${(i % 977) / 10} ms by worker ${i % 16} status=${i % 10 === 0 ? 'failed' : 'ok'}`,
      },
      attributes: [
        { key: 'order.id', value: { intValue: String(i % 100000) } },
        { key: 'http.route', value: { stringValue: `/api/orders/${i % 50}` } },
        { key: 'retry', value: { boolValue: i % 7 === 0 } },
        { key: 'latency_ms', value: { doubleValue: (i % 977) / 10 } },
      ],
      traceId: Buffer.alloc(16, i % 251),
      spanId: Buffer.alloc(8, i % 241),
    });
  }
  const msg = ExportLogsServiceRequest.fromObject({
    resourceLogs: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'orders' } },
            { key: 'host.name', value: { stringValue: 'node-1' } },
          ],
        },
        scopeLogs: [{ scope: { name: 'bench', version: '1.0.0' }, logRecords }],
      },
    ],
  });
  return Buffer.from(ExportLogsServiceRequest.encode(msg).finish());
}

const total = envInt('BENCH_EVENTS', 500_000);
const batch = envInt('BENCH_BATCH', 2000);
const concurrency = envInt('BENCH_CONCURRENCY', 4);
const gzip = process.env.BENCH_GZIP !== '0';
const { server, token, searchKey, cleanup } = await benchServer();
try {
  const bodies = Array.from({ length: 8 }, (_, k) => requestBody(k * batch, batch)).map((b) =>
    gzip ? gzipSync(b) : b,
  );
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/x-protobuf',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  console.log(
    `otlp: ${total} records, ${batch}/request, ${concurrency} clients, gzip ${gzip}, body ${(bodies[0].length / 1024).toFixed(0)} KiB, node ${process.version}`,
  );
  const cpu0 = cpuSecs(server.child.pid!);
  const r = await runLoad(total, batch, concurrency, async (i) => {
    const body = bodies[i % bodies.length];
    const res = await fetch(`${server.url}/v1/logs`, { method: 'POST', headers, body: new Uint8Array(body) });
    await res.arrayBuffer();
    return { ok: res.status === 200, bytes: body.length };
  });
  report('otlp', r, server, cpu0);
  console.log(`  stored       ${await storedCount(server, searchKey)} events found by search`);
} finally {
  await cleanup();
}
