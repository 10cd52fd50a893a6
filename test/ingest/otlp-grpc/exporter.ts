import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type ChannelCredentials,
  type ServiceError,
} from '@grpc/grpc-js';
import { SeverityNumber, type LogRecord } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';

/** The resource every test batch carries (host.name and service.name become host and source). */
export const RESOURCE = {
  'service.name': 'billing',
  'host.name': 'grpc-node-3',
  'deployment.environment': 'staging',
  'svc.index': 'otelgrpc',
};

/**
 * Log records as the OTel SDK makes them (a LoggerProvider with `RESOURCE`, scope `svc-grpc-test`),
 * ready for an exporter's export(): the records the SDK's batch processor would hand it.
 */
export async function sdkRecords(
  emit: (l: { emit(r: LogRecord): void }) => void,
  resource = RESOURCE,
): Promise<ReadableLogRecord[]> {
  const memory = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes(resource),
    processors: [new SimpleLogRecordProcessor({ exporter: memory })],
  });
  emit(provider.getLogger('svc-grpc-test', '2.0.1'));
  await provider.forceFlush();
  const out = memory.getFinishedLogRecords();
  await provider.shutdown();
  return out;
}

/** ExportResultCode.SUCCESS of @opentelemetry/core (not a dependency of ours). */
const EXPORT_SUCCESS = 0;

export interface ExportAnswer {
  ok: boolean;
  /** The gRPC error the exporter failed with (code, details, trailing metadata). */
  error?: ServiceError;
}

/**
 * One export through the official OTLP/gRPC log exporter (gzip on), its result as the exporter
 * reports it. `ca`: trust this certificate and connect over TLS.
 */
export async function grpcExport(
  address: string,
  token: string | undefined,
  records: ReadableLogRecord[],
  opts: { ca?: Buffer } = {},
): Promise<ExportAnswer> {
  const metadata = new Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  const creds: ChannelCredentials = opts.ca ? credentials.createSsl(opts.ca) : credentials.createInsecure();
  const exporter = new OTLPLogExporter({
    url: `${opts.ca ? 'https' : 'http'}://${address}`,
    metadata,
    credentials: creds,
    compression: 'gzip' as never,
    // generous: the test machine is shared and often loaded; a deadline hit is a failed export
    timeoutMillis: 60_000,
  });
  try {
    const result = await new Promise<{ code: number; error?: Error }>((r) => exporter.export(records, r));
    return { ok: result.code === EXPORT_SUCCESS, error: result.error as ServiceError | undefined };
  } finally {
    await exporter.shutdown();
  }
}

export { SeverityNumber };

/** A bare gRPC client of LogsService/Export that sends raw bytes (malformed messages, partial success). */
const RawClient = makeGenericClientConstructor(
  {
    export: {
      path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
      requestStream: false,
      responseStream: false,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
    },
  },
  'LogsService',
);

/** Sends `body` as one Export call; answers the response bytes or the gRPC error. */
export async function rawExport(
  address: string,
  token: string,
  body: Uint8Array,
): Promise<{ response?: Buffer; error?: ServiceError }> {
  const client = new RawClient(address, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  try {
    return await new Promise((resolve) =>
      (client as unknown as RawExport).export(Buffer.from(body), metadata, (error, response) =>
        resolve(error ? { error } : { response }),
      ),
    );
  } finally {
    client.close();
  }
}

type RawExport = {
  export(req: Buffer, md: Metadata, cb: (err: ServiceError | null, res?: Buffer) => void): void;
};
