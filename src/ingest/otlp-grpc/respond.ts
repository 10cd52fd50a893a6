import { Metadata, type ServerErrorResponse } from '@grpc/grpc-js';
import type { SvcError } from '../../errors/svc-error.js';
import { grpcCodeOf, RETRY_INFO_TYPE, RetryInfo, RpcStatus } from '../otlp/logs-proto.js';

/**
 * OTLP/gRPC's errors: the status code of the error's kind (the same table as OTLP/HTTP's bodies,
 * ../otlp/logs-proto.ts), its message as the details, and a google.rpc.Status in the
 * `grpc-status-details-bin` trailer. When svc knows when to retry (a full writer queue, busy
 * decode workers) that Status carries a google.rpc.RetryInfo: the OTLP spec makes
 * RESOURCE_EXHAUSTED retryable only with it, so exporters that read it back off and try again.
 */
export function grpcError(err: SvcError): ServerErrorResponse {
  const code = grpcCodeOf(err.kind);
  const details =
    err.retryAfterSecs === undefined ? [] : [{ typeUrl: RETRY_INFO_TYPE, value: retryInfo(err.retryAfterSecs) }];
  const status = RpcStatus.encode(RpcStatus.create({ code, message: err.message, details })).finish();
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(status));
  return { name: err.code, message: err.message, code, details: err.message, metadata };
}

function retryInfo(secs: number): Uint8Array {
  const delay = { seconds: Math.max(1, Math.ceil(secs)), nanos: 0 };
  return RetryInfo.encode(RetryInfo.create({ retryDelay: delay })).finish();
}
