import snappy from 'snappyjs';
import { SvcError } from '../../errors/svc-error.js';
import { PushRequest, type PushRequestMsg } from './push-proto.js';
import { labelsOf, type LokiStream } from './streams.js';

/**
 * Loki's protobuf push body: snappy block format (usually without a Content-Encoding header)
 * around a logproto.PushRequest (push-proto.ts), as promtail, Alloy and winston-loki send it.
 */

type LongLike = number | string | { toNumber(): number };

function longToNumber(v: LongLike | undefined): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return v.toNumber();
}

/** Snappy block format → PushRequest; `size.bytes` gets the decompressed size. Throws invalid_input / body_too_large. */
export function decodeProtobuf(body: Buffer, maxBytes: number, size?: { bytes: number }): LokiStream[] {
  let raw: Uint8Array;
  try {
    raw = snappy.uncompress(body, maxBytes);
  } catch (e) {
    const msg = (e as Error).message;
    if (/too big/.test(msg)) throw new SvcError('body_too_large', `decompressed body is larger than ${maxBytes} bytes`);
    throw new SvcError('invalid_input', `cannot decompress snappy body: ${msg}`);
  }
  if (size) size.bytes = raw.length;
  let msg: PushRequestMsg;
  try {
    msg = PushRequest.decode(raw) as unknown as PushRequestMsg;
  } catch (e) {
    throw new SvcError('invalid_input', `cannot decode push request: ${(e as Error).message}`);
  }
  return (msg.streams ?? []).map((s) => ({
    labels: labelsOf(s.labels ?? '{}'),
    entries: (s.entries ?? []).map((e) => ({
      timeUs: longToNumber(e.timestamp?.seconds) * 1_000_000 + Math.floor((e.timestamp?.nanos ?? 0) / 1000),
      line: e.line ?? '',
      metadata: e.structuredMetadata?.length
        ? Object.fromEntries(e.structuredMetadata.map((p) => [p.name ?? '', p.value ?? '']))
        : undefined,
    })),
  }));
}
