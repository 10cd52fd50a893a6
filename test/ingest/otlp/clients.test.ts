import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { otlpRoutes } from '../../../src/ingest/otlp/route.js';
import { ExportLogsServiceRequest, RpcStatus } from '../../../src/ingest/otlp/logs-proto.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { SeverityNumber, otelLogger } from './otel.js';

describe('OTLP endpoint with the OpenTelemetry exporters', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(otlpRoutes);
  });
  after(async () => h.close());

  for (const kind of ['http', 'proto'] as const) {
    it(`receives gzip ${kind === 'http' ? 'JSON' : 'protobuf'} exports with attributes, severity and trace ids`, async () => {
      h.writer.events.length = 0;
      const log = otelLogger(kind, `${h.url}/v1/logs`, 'svi_default');
      const t = Date.parse('2026-11-20T10:00:00.123Z');
      log.emit({
        timestamp: t,
        severityNumber: SeverityNumber.WARN,
        severityText: 'WARN',
        body: `payment declined via ${kind}`,
        attributes: { 'http.status_code': 402, user: { id: 'u1' }, retry: true },
        context: undefined,
      });
      log.emit({ body: { message: 'structured', order: 17 } });
      await log.flush();
      await log.shutdown();
      assert.equal(h.writer.events.length, 2);
      const [a, b] = h.writer.events;
      assert.equal(a.env, 'default');
      assert.equal(a.index, 'otel');
      assert.equal(a.timeUs, t * 1000);
      assert.equal(a.message, `payment declined via ${kind}`);
      assert.equal(a.host, 'node-7');
      assert.equal(a.source, 'checkout');
      assert.equal(a.fields['http.status_code'], 402);
      assert.equal(a.fields['user.id'], 'u1');
      assert.equal(a.fields.retry, true);
      assert.equal(a.fields.severity, 'WARN');
      assert.equal(a.fields.severity_number, 13);
      assert.equal(a.fields['scope.name'], 'svc-test');
      assert.equal(a.fields['svc.index'], undefined);
      assert.equal(b.message, 'structured');
      assert.equal(b.fields.order, 17);
      assert.ok(Math.abs(b.timeUs - Date.now() * 1000) < 60_000_000, 'observed time used when there is no timestamp');
    });
  }

  it('answers errors as google.rpc.Status in the request encoding', async () => {
    const denied = await fetch(`${h.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer svi_x' },
      body: '{}',
    });
    assert.equal(denied.status, 401);
    assert.equal(((await denied.json()) as { code: number }).code, 16);
    const bad = await fetch(`${h.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', authorization: 'Bearer svi_default' },
      body: Buffer.from([0xff, 0xff, 0xff]),
    });
    assert.equal(bad.status, 400);
    const st = RpcStatus.decode(Buffer.from(await bad.arrayBuffer())) as unknown as { code: number; message: string };
    assert.equal(st.code, 3);
    const media = await fetch(`${h.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: 'Bearer svi_default' },
      body: 'x',
    });
    assert.equal(media.status, 400);
  });

  it('lets the pinned index win over svc.index, and counts records with a refused index name in partial_success', async () => {
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'svc.index', value: { stringValue: 'other' } }] },
          scopeLogs: [{ logRecords: [{ timeUnixNano: '1763812800000000000', body: { stringValue: 'x' } }] }],
        },
      ],
    };
    const res = await fetch(`${h.url}/api/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer svi_pinned' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    const bad = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                { body: { stringValue: 'y' }, attributes: [{ key: 'svc.index', value: { stringValue: 'a/b' } }] },
                { body: { stringValue: 'z' } },
              ],
            },
          ],
        },
      ],
    };
    const res2 = await fetch(`${h.url}/api/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer svi_default' },
      body: JSON.stringify(bad),
    });
    const out = (await res2.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(out.partialSuccess.rejectedLogRecords, '1');
    assert.match(out.partialSuccess.errorMessage, /index: want 1-64 letters.*"a\/b"/);
    const enc = ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(body)).finish();
    assert.ok(enc.length > 0);
  });
});
