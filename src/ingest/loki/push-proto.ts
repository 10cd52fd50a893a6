import protobuf from 'protobufjs';

/**
 * Loki's push request (pkg/push/push.proto, package logproto), as promtail, Alloy and winston-loki
 * send it: snappy block-compressed protobuf, usually with no Content-Encoding header.
 */
const PUSH_PROTO = `
syntax = "proto3";
package logproto;
message PushRequest { repeated StreamAdapter streams = 1; }
message StreamAdapter {
  string labels = 1;
  repeated EntryAdapter entries = 2;
  uint64 hash = 3;
}
message EntryAdapter {
  Timestamp timestamp = 1;
  string line = 2;
  repeated LabelPairAdapter structuredMetadata = 3;
}
message LabelPairAdapter { string name = 1; string value = 2; }
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
`;

export const PushRequest = protobuf.parse(PUSH_PROTO, { keepCase: true }).root.lookupType('logproto.PushRequest');

export interface PushRequestMsg {
  streams?: {
    labels?: string;
    entries?: {
      timestamp?: { seconds?: number | string | { toNumber(): number }; nanos?: number };
      line?: string;
      structuredMetadata?: { name?: string; value?: string }[];
    }[];
  }[];
}
