import type { FastifyReply } from 'fastify';
import type { SvcError } from '../../errors/svc-error.js';
import { setErrorStatus } from '../../http-kit/errors.js';
import { encodeExportResponse, grpcCodeOf, RpcStatus } from './logs-proto.js';

/**
 * OTLP/HTTP's edge: answers in the request's encoding, ExportLogsServiceResponse on success (records
 * refused by index rules counted in partial_success) and google.rpc.Status on error. A full writer
 * queue is 429 RESOURCE_EXHAUSTED with Retry-After, which the OTel exporters retry.
 */

export type OtlpEncoding = 'protobuf' | 'json';

function send(reply: FastifyReply, enc: OtlpEncoding, proto: Uint8Array, json: unknown): FastifyReply {
  if (enc === 'protobuf') return reply.type('application/x-protobuf').send(Buffer.from(proto));
  return reply.type('application/json').send(json);
}

export function sendOtlpError(reply: FastifyReply, enc: OtlpEncoding, err: SvcError): FastifyReply {
  setErrorStatus(reply, err);
  const msg = { code: grpcCodeOf(err.kind), message: err.message };
  return send(reply, enc, RpcStatus.encode(RpcStatus.create(msg)).finish(), msg);
}

/** The export answer; `rejected` records were refused (the last refusal's reason in `reason`). */
export function sendExported(reply: FastifyReply, enc: OtlpEncoding, rejected: number, reason: string): FastifyReply {
  const proto = encodeExportResponse(rejected, reason);
  // OTLP/JSON writes int64 as a string
  const json = rejected > 0 ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: reason } } : {};
  return send(reply.code(200), enc, proto, json);
}
