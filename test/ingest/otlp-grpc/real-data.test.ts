import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { credentials, Metadata } from '@grpc/grpc-js';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { startE2E, searchEvents, type E2E } from '../helpers/e2e.js';
import { REAL_DATA, REAL_LOGS, REAL_LOGS_PRESENT, realLines } from '../../helpers/real-logs.js';

/**
 * The real OpenSSH log (SVC_REAL_DATA) shipped line by line through the OTel SDK's batch
 * processor and the official gRPC exporter, gzip on: every line is stored once, as the test's
 * own reading of the file counts them.
 */
describe('OTLP/gRPC with a real log file', { skip: REAL_LOGS_PRESENT ? false : `no real data at ${REAL_DATA}` }, () => {
  let e: E2E;
  before(async () => {
    e = await startE2E({ SVC_OTLP_GRPC_LISTEN: '127.0.0.1:0' });
  });
  after(async () => e?.close());

  it('stores every line of OpenSSH_2k.log exactly once', async () => {
    const lines = realLines(REAL_LOGS.ssh);
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${e.token}`);
    const exporter = new OTLPLogExporter({
      url: `http://127.0.0.1:${e.srv.otlpGrpc!.port}`,
      metadata,
      credentials: credentials.createInsecure(),
      compression: 'gzip' as never,
    });
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'sshd', 'host.name': 'LabSZ', 'svc.index': 'ssh' }),
      processors: [new BatchLogRecordProcessor({ exporter, maxExportBatchSize: 256, scheduledDelayMillis: 20 })],
    });
    const log = provider.getLogger('real-data');
    lines.forEach((line, i) => log.emit({ body: line, attributes: { 'log.file.line': i + 1 } }));
    await provider.forceFlush();
    await provider.shutdown();

    const stored = await searchEvents(e.srv, e.searchKey, { q: '*', index: 'ssh', limit: 10_000 });
    assert.equal(stored.length, lines.length);
    const byLine = new Map(stored.map((x) => [Number(x.fields['log.file.line']), x.message]));
    assert.equal(byLine.size, lines.length, 'each line number once');
    lines.forEach((line, i) => assert.equal(byLine.get(i + 1), line, `line ${i + 1}`));
    const failed = lines.filter((l) => l.includes('Failed password')).length;
    assert.ok(failed > 0);
    assert.equal(stored.filter((x) => x.message.includes('Failed password')).length, failed);
  });
});
