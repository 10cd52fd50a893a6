/**
 * Loki push ingest benchmark: a real svc process, N concurrent clients posting pre-built
 * snappy-compressed protobuf PushRequests to /loki/api/v1/push, as promtail, Grafana Alloy and the
 * Loki Docker driver send them.
 *
 *   node --import tsx bench/loki.ts
 *   BENCH_EVENTS=500000 BENCH_BATCH=2000 BENCH_CONCURRENCY=4 BENCH_STREAMS=20 node --import tsx bench/loki.ts
 *
 * Data set: log lines of ~100 bytes with varying ids, BENCH_STREAMS streams per request (labels job,
 * host, level), one structured-metadata pair per entry; one day of timestamps. Prints the same
 * figures as es-bulk.
 */
import snappy from 'snappyjs';
import { PushRequest } from '../src/ingest/loki/push-proto.js';
import { benchServer, cpuSecs, envInt, report, runLoad, storedCount } from './es-bulk.js';

const BASE_S = Date.UTC(2026, 10, 20) / 1000;

function requestBody(start: number, n: number, streamCount: number): Buffer {
  const streams = Array.from({ length: streamCount }, (_, s) => ({
    labels: `{job="api", host="node-${s}", level="${s % 5 === 0 ? 'error' : 'info'}"}`,
    entries: [] as {
      timestamp: { seconds: number; nanos: number };
      line: string;
      structuredMetadata: { name: string; value: string }[];
    }[],
  }));
  for (let i = start; i < start + n; i++) {
    streams[i % streamCount].entries.push({
      timestamp: { seconds: BASE_S + (i % 86_400), nanos: (i % 1000) * 1000 },
      line: `GET /api/orders/${i % 100000} 200 ${(i % 977) / 10}ms user=${(i * 7919) % 50000} req=${(i * 2654435761) >>> 0}`,
      structuredMetadata: [{ name: 'trace_id', value: ((i * 40503) >>> 0).toString(16) }],
    });
  }
  return Buffer.from(snappy.compress(PushRequest.encode(PushRequest.create({ streams })).finish()));
}

const total = envInt('BENCH_EVENTS', 500_000);
const batch = envInt('BENCH_BATCH', 2000);
const concurrency = envInt('BENCH_CONCURRENCY', 4);
const streamCount = envInt('BENCH_STREAMS', 20);
const { server, token, searchKey, cleanup } = await benchServer();
try {
  const bodies = Array.from({ length: 8 }, (_, k) => requestBody(k * batch, batch, streamCount));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' };
  console.log(
    `loki: ${total} entries, ${batch}/request in ${streamCount} streams, ${concurrency} clients, body ${(bodies[0].length / 1024).toFixed(0)} KiB (snappy), node ${process.version}`,
  );
  const cpu0 = cpuSecs(server.child.pid!);
  const r = await runLoad(total, batch, concurrency, async (i) => {
    const body = bodies[i % bodies.length];
    const res = await fetch(`${server.url}/loki/api/v1/push`, { method: 'POST', headers, body: new Uint8Array(body) });
    await res.arrayBuffer();
    return { ok: res.status === 204, bytes: body.length };
  });
  report('loki', r, server, cpu0);
  console.log(`  stored       ${await storedCount(server, searchKey)} events found by search`);
} finally {
  await cleanup();
}
