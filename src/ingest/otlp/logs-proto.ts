import protobuf from 'protobufjs';
import type { ErrorKind } from '../../errors/codes.js';

/**
 * OTLP logs (opentelemetry-proto: collector/logs/v1, logs/v1, common/v1, resource/v1), over HTTP
 * and gRPC, and google.rpc.Status (with RetryInfo) for errors. Field numbers from the public .proto files. protobufjs
 * turns snake_case into the lowerCamelCase names OTLP/JSON uses, so one normaliser reads both.
 * Severity is read as a plain int32 (same wire encoding as the enum).
 */
const OTLP_LOGS_PROTO = `
syntax = "proto3";
package otlp;
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; string schema_url = 3; }
message ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; string schema_url = 3; }
message LogRecord {
  fixed64 time_unix_nano = 1;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  fixed64 observed_time_unix_nano = 11;
  string event_name = 12;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Any { string type_url = 1; bytes value = 2; }
message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
message Duration { int64 seconds = 1; int32 nanos = 2; }
message RetryInfo { Duration retry_delay = 1; }
`;

const root = protobuf.parse(OTLP_LOGS_PROTO).root;
export const ExportLogsServiceRequest = root.lookupType('otlp.ExportLogsServiceRequest');
export const ExportLogsServiceResponse = root.lookupType('otlp.ExportLogsServiceResponse');
export const RpcStatus = root.lookupType('otlp.Status');
export const RetryInfo = root.lookupType('otlp.RetryInfo');

/** An ExportLogsServiceResponse: empty on full success, else partial_success with the refused records. */
export function encodeExportResponse(rejected: number, reason: string): Uint8Array {
  const partial = rejected > 0 ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage: reason } } : {};
  return ExportLogsServiceResponse.encode(ExportLogsServiceResponse.create(partial)).finish();
}

/** gRPC status codes used in OTLP/HTTP error bodies and OTLP/gRPC answers. */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  ABORTED: 10,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The gRPC code of each kind of error, for both OTLP transports (the OTLP spec's mapping of HTTP
 * statuses: 400 INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 429 RESOURCE_EXHAUSTED,
 * 503 UNAVAILABLE). A too-large body is the sender's INVALID_ARGUMENT: retrying it cannot help.
 */
const GRPC_BY_KIND: Record<ErrorKind, number> = {
  bad_request: GRPC.INVALID_ARGUMENT,
  unauthenticated: GRPC.UNAUTHENTICATED,
  forbidden: GRPC.PERMISSION_DENIED,
  not_found: GRPC.NOT_FOUND,
  conflict: GRPC.ABORTED,
  too_large: GRPC.INVALID_ARGUMENT,
  too_many_requests: GRPC.RESOURCE_EXHAUSTED,
  unavailable: GRPC.UNAVAILABLE,
  internal: GRPC.INTERNAL,
};

export function grpcCodeOf(kind: ErrorKind): number {
  return GRPC_BY_KIND[kind];
}

/** The type URL of google.rpc.RetryInfo in a Status's details (how OTLP/gRPC says when to retry). */
export const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';
