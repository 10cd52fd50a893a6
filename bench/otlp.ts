/**
 * OTLP logs ingest benchmark, OTLP/HTTP and OTLP/gRPC on the same data: a real svc process per
 * transport, N concurrent clients sending pre-built ExportLogsServiceRequest protobuf bodies (gzip
 * by default, as the exporters send them) to /v1/logs, or as LogsService/Export calls.
 *
 *   node --import tsx bench/otlp.ts
 *   BENCH_EVENTS=500000 BENCH_BATCH=2000 BENCH_CONCURRENCY=4 BENCH_GZIP=0 BENCH_TRANSPORT=grpc node --import tsx bench/otlp.ts
 *
 * Data set: records with a string body (~100 bytes), 4 attributes, severity, trace/span ids, one
 * resource with service.name/host.name; one day of timestamps. Prints the same figures as es-bulk.
 */
import { gzipSync } from 'node:zlib';
import { credentials, makeGenericClientConstructor, Metadata, type ServiceError } from '@grpc/grpc-js';
import { freePort } from '../test/helpers/ports.js';
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
const transports = (process.env.BENCH_TRANSPORT ?? 'http,grpc').split(',');
const raw = Array.from({ length: 8 }, (_, k) => requestBody(k * batch, batch));
const gzipped = raw.map((b) => gzipSync(b));
const wireBytes = (i: number) => (gzip ? gzipped : raw)[i % raw.length].length;
console.log(
  `otlp: ${total} records, ${batch}/request, ${concurrency} clients, gzip ${gzip}, body ${(wireBytes(0) / 1024).toFixed(0)} KiB, node ${process.version}`,
);

/** OTLP/HTTP: pre-compressed bodies posted to /v1/logs, one fetch per request. */
async function overHttp(): Promise<void> {
  const { server, token, searchKey, cleanup } = await benchServer();
  try {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/x-protobuf',
    };
    if (gzip) headers['content-encoding'] = 'gzip';
    const cpu0 = cpuSecs(server.child.pid!);
    const r = await runLoad(total, batch, concurrency, async (i) => {
      const body = (gzip ? gzipped : raw)[i % raw.length];
      const res = await fetch(`${server.url}/v1/logs`, { method: 'POST', headers, body: new Uint8Array(body) });
      await res.arrayBuffer();
      return { ok: res.status === 200, bytes: body.length };
    });
    report('otlp/http', r, server, cpu0);
    console.log(`  stored       ${await storedCount(server, searchKey)} events found by search`);
  } finally {
    await cleanup();
  }
}

type ExportFn = (req: Buffer, md: Metadata, cb: (err: ServiceError | null) => void) => void;

/**
 * OTLP/gRPC: the same bodies as unary Export calls on one channel (HTTP/2 streams, as the exporters
 * do), gzip by grpc-js per message (so the bench process compresses, where the HTTP run sent bodies
 * compressed beforehand: compare server CPU, not the client's).
 */
async function overGrpc(): Promise<void> {
  const port = await freePort();
  const { server, token, searchKey, cleanup } = await benchServer({ SVC_OTLP_GRPC_LISTEN: `127.0.0.1:${port}` });
  const pass = (b: Buffer) => b;
  const Client = makeGenericClientConstructor(
    {
      export: {
        path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: pass,
        requestDeserialize: pass,
        responseSerialize: pass,
        responseDeserialize: pass,
      },
    },
    'LogsService',
  );
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.default_compression_algorithm': gzip ? 2 : 0,
    'grpc.max_send_message_length': -1,
  });
  const md = new Metadata();
  md.set('authorization', `Bearer ${token}`);
  const call = (client as unknown as { export: ExportFn }).export.bind(client);
  try {
    const cpu0 = cpuSecs(server.child.pid!);
    const r = await runLoad(total, batch, concurrency, (i) => {
      const body = raw[i % raw.length];
      return new Promise((resolve) => call(body, md, (err) => resolve({ ok: !err, bytes: wireBytes(i) })));
    });
    report('otlp/grpc', r, server, cpu0);
    console.log(`  stored       ${await storedCount(server, searchKey)} events found by search`);
  } finally {
    client.close();
    await cleanup();
  }
}

// each transport against its own fresh server, so peak RSS and CPU are its own
for (const t of transports) await (t === 'grpc' ? overGrpc() : overHttp());
