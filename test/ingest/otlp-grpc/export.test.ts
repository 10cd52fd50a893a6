import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { startE2E, searchEvents, E2E_ENV, type E2E } from '../helpers/e2e.js';
import { createApiKey } from '../../helpers/auth.js';
import { ExportLogsServiceRequest, ExportLogsServiceResponse } from '../../../src/ingest/otlp/logs-proto.js';
import { grpcExport, rawExport, sdkRecords, SeverityNumber, RESOURCE } from './exporter.js';

/** The gRPC address of a test server with SVC_OTLP_GRPC_LISTEN=127.0.0.1:0. */
const grpcAddress = (e: E2E) => `127.0.0.1:${e.srv.otlpGrpc!.port}`;

/** One OTLP/JSON-shaped request, encoded as protobuf (the raw client sends bytes). */
function encodedRequest(records: { body: string; index?: string }[]): Uint8Array {
  const logRecords = records.map((r) => ({
    timeUnixNano: '1763812800000000000',
    body: { stringValue: r.body },
    attributes: r.index ? [{ key: 'svc.index', value: { stringValue: r.index } }] : [],
  }));
  const req = { resourceLogs: [{ scopeLogs: [{ logRecords }] }] };
  return ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(req)).finish();
}

describe('OTLP logs over gRPC with the official exporter', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_OTLP_GRPC_LISTEN: '127.0.0.1:0', SVC_MAX_BODY_BYTES: String(1024 * 1024) });
  });
  after(async () => e.close());

  it('stores a gzip batch, found by search with its resource and log attributes', async () => {
    const t = Date.parse('2026-11-18T05:00:00.250Z');
    const records = await sdkRecords((log) => {
      for (let i = 0; i < 3; i++)
        log.emit({
          timestamp: t + i,
          severityNumber: SeverityNumber.ERROR,
          severityText: 'ERROR',
          body: `grpc charge failed ${i}`,
          attributes: { 'order.id': 500 + i, 'payment.provider': 'acme', retry: i === 2 },
        });
    });
    const answer = await grpcExport(grpcAddress(e), e.token, records);
    assert.equal(answer.ok, true, String(answer.error));
    const events = await searchEvents(e.srv, e.searchKey, {
      q: '"grpc charge failed"',
      index: 'otelgrpc',
      from: '2026-11-18T00:00:00Z',
      to: '2026-11-18T06:00:00Z',
    });
    assert.equal(events.length, 3);
    const last = events.find((x) => x.message === 'grpc charge failed 2')!;
    assert.equal(last.env, E2E_ENV);
    assert.equal(last.index, 'otelgrpc');
    assert.equal(last.host, RESOURCE['host.name']);
    assert.equal(last.source, RESOURCE['service.name']);
    assert.equal(last.sourcetype, 'otlp');
    assert.equal(Date.parse(last.time), t + 2);
    assert.equal(last.fields['deployment.environment'], 'staging');
    assert.equal(Number(last.fields['order.id']), 502);
    assert.equal(last.fields['payment.provider'], 'acme');
    assert.equal(String(last.fields.retry), 'true');
    assert.equal(last.fields.severity, 'ERROR');
    assert.equal(last.fields['scope.name'], 'svc-grpc-test');
  });

  it('answers UNAUTHENTICATED to a wrong or missing token and PERMISSION_DENIED to an API key, storing nothing', async () => {
    const records = await sdkRecords((log) => log.emit({ body: 'grpc must not be stored' }));
    const apiKey = await createApiKey(e.srv, { scopes: ['standard'] });
    const cases: [string | undefined, number][] = [
      ['svi_not_a_real_token', status.UNAUTHENTICATED],
      [undefined, status.UNAUTHENTICATED],
      [apiKey, status.PERMISSION_DENIED],
    ];
    for (const [token, code] of cases) {
      const answer = await grpcExport(grpcAddress(e), token, records);
      assert.equal(answer.ok, false);
      assert.equal(answer.error?.code, code, `${token?.slice(0, 4)}: ${String(answer.error)}`);
    }
    assert.equal((await searchEvents(e.srv, e.searchKey, { q: '"grpc must not be stored"' })).length, 0);
  });

  it('counts records refused by an index rule in partial_success and stores the rest', async () => {
    const body = encodedRequest([{ body: 'grpc partial kept' }, { body: 'grpc partial refused', index: 'a/b' }]);
    const { response, error } = await rawExport(grpcAddress(e), e.token, body);
    assert.equal(error, undefined);
    const out = ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(response!), { longs: Number }) as {
      partialSuccess?: { rejectedLogRecords: number; errorMessage: string };
    };
    assert.equal(out.partialSuccess?.rejectedLogRecords, 1);
    assert.match(out.partialSuccess?.errorMessage ?? '', /"a\/b"/);
    const kept = await searchEvents(e.srv, e.searchKey, { q: '"grpc partial"' });
    assert.deepEqual(
      kept.map((x) => x.message),
      ['grpc partial kept'],
    );
  });

  it('answers INVALID_ARGUMENT to a malformed message and keeps serving', async () => {
    const bad = await rawExport(grpcAddress(e), e.token, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
    assert.equal(bad.error?.code, status.INVALID_ARGUMENT, String(bad.error));
    assert.match(bad.error?.details ?? '', /cannot decode ExportLogsServiceRequest/);
    const records = await sdkRecords((log) => log.emit({ body: 'grpc after a malformed one' }));
    assert.equal((await grpcExport(grpcAddress(e), e.token, records)).ok, true);
    assert.equal((await searchEvents(e.srv, e.searchKey, { q: '"grpc after a malformed one"' })).length, 1);
  });

  it('refuses a message larger than SVC_MAX_BODY_BYTES with RESOURCE_EXHAUSTED', async () => {
    const big = encodedRequest([{ body: 'x'.repeat(1024 * 1024 + 10) }]);
    const { error } = await rawExport(grpcAddress(e), e.token, big);
    assert.equal(error?.code, status.RESOURCE_EXHAUSTED, String(error));
  });
});
