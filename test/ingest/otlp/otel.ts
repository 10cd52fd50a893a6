import { OTLPLogExporter as HttpExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { SeverityNumber, type LogRecord } from '@opentelemetry/api-logs';

/** The OTel SDK's logger with the http (JSON) or proto exporter, gzip, pointed at `url`. */
export function otelLogger(kind: 'http' | 'proto', url: string, token: string, opts: { timeoutMillis?: number } = {}) {
  const cfg = {
    url,
    headers: { Authorization: `Bearer ${token}` },
    compression: 'gzip' as never,
    timeoutMillis: opts.timeoutMillis ?? 10_000,
  };
  const exporter = kind === 'http' ? new HttpExporter(cfg) : new ProtoExporter(cfg);
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout', 'host.name': 'node-7', 'svc.index': 'otel' }),
    processors: [
      new BatchLogRecordProcessor({
        exporter,
        scheduledDelayMillis: 50,
        exportTimeoutMillis: opts.timeoutMillis ?? 10_000,
      }),
    ],
  });
  const logger = provider.getLogger('svc-test', '1.2.3');
  return {
    emit(r: LogRecord) {
      logger.emit(r);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

export { SeverityNumber };
