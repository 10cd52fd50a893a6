import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, searchEvents, E2E_ENV, type E2E } from '../helpers/e2e.js';
import { SeverityNumber, otelLogger } from './otel.js';

describe('OpenTelemetry exporters against a real svc', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => e.close());

  for (const kind of ['http', 'proto'] as const) {
    it(`stores gzip exports of the ${kind} exporter, found by search with attributes`, async () => {
      const log = otelLogger(kind, `${e.srv.url}/v1/logs`, e.token);
      const t = Date.parse(kind === 'http' ? '2026-11-19T01:00:00.001Z' : '2026-11-19T02:00:00.002Z');
      for (let i = 0; i < 3; i++) {
        log.emit({
          timestamp: t + i,
          severityNumber: SeverityNumber.ERROR,
          severityText: 'ERROR',
          body: `otlp ${kind} record ${i}`,
          attributes: { 'order.id': 100 + i },
        });
      }
      await log.flush();
      await log.shutdown();
      const events = await searchEvents(e.srv, e.searchKey, {
        q: `otlp ${kind}`,
        index: 'otel',
        from: '2026-11-19T00:00:00Z',
        to: '2026-11-19T03:00:00Z',
      });
      assert.equal(events.length, 3);
      const first = events.find((x) => x.message === `otlp ${kind} record 0`)!;
      assert.equal(first.env, E2E_ENV);
      assert.equal(first.index, 'otel');
      assert.equal(first.host, 'node-7');
      assert.equal(first.source, 'checkout');
      assert.equal(first.sourcetype, 'otlp');
      assert.equal(Date.parse(first.time), t);
      assert.equal(Number(first.fields['order.id']), 100);
      assert.equal(first.fields.severity, 'ERROR');
    });
  }
});
