import type { sendUnaryData, ServerUnaryCall, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { toSvcError } from '../../http-kit/errors.js';
import { extractToken } from '../../http-kit/ingest-token.js';
import { authorize, type IngestContext } from '../common/context.js';
import { exportOtlp } from '../otlp/export.js';
import { encodeExportResponse } from '../otlp/logs-proto.js';
import { grpcError } from './respond.js';

/**
 * OTLP logs over gRPC: the unary `opentelemetry.proto.collector.logs.v1.LogsService/Export`, a thin
 * transport over the OTLP/HTTP path (../otlp/export.ts decodes, routes and writes). grpc-js has
 * already undone gzip/deflate and bounded the message (listener.ts); the request stays raw bytes
 * here so a message that does not decode is our INVALID_ARGUMENT, not grpc-js's INTERNAL.
 */

/** The metadata schemes OTLP/HTTP takes in its Authorization header. */
const AUTH_SCHEMES = ['bearer', 'basic'] as const;

const identity = (b: Buffer): Buffer => b;

/** The service with pass-through (de)serializers: no .proto loader, the bytes go to protobufjs. */
export const LOGS_SERVICE: ServiceDefinition = {
  export: {
    path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'Export',
  },
};

/** The first `authorization` metadata value (grpc-js lowercases keys; a binary value is no token). */
function authorization(call: ServerUnaryCall<Buffer, Buffer>): string | undefined {
  const v = call.metadata.get('authorization')[0];
  return typeof v === 'string' ? v : undefined;
}

/** Authenticates, exports, and answers the ExportLogsServiceResponse once the records are durable. */
async function exportLogs(ctx: IngestContext, call: ServerUnaryCall<Buffer, Buffer>): Promise<Buffer> {
  const tok = extractToken(authorization(call), AUTH_SCHEMES);
  const { principal } = await authorize(ctx, tok?.token);
  ctx.precheck?.(principal.pin.env, 0); // before the message is decoded: a refusal costs little
  const { rejected, reason } = await exportOtlp(ctx, principal, call.request, 'protobuf');
  return Buffer.from(encodeExportResponse(rejected, reason));
}

/** Exports being handled now (counted from the call's arrival to its answer). */
export interface CallCount {
  inFlight: number;
}

/** The LogsService implementation over `ctx`. Called concurrently by grpc-js for every open stream. */
export function logsService(ctx: IngestContext, calls: CallCount): UntypedServiceImplementation {
  return {
    export(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) {
      calls.inFlight++;
      exportLogs(ctx, call)
        .then(
          (answer) => callback(null, answer),
          (err: unknown) => {
            const e = toSvcError(err);
            if (e.kind === 'internal') ctx.log?.error({ err }, 'otlp grpc export failed');
            ctx.meter?.refused(e);
            callback(grpcError(e));
          },
        )
        .finally(() => calls.inFlight--);
    },
  };
}
