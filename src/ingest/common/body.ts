import { brotliDecompress, constants, gunzip, inflate } from 'node:zlib';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Request bodies of every ingest protocol: raw bytes, decompressed here on libuv's thread pool
 * (zlib's async API), so a large compressed body does not stall the event loop. The body is bounded
 * twice by `maxBytes` (SVC_MAX_BODY_BYTES): as sent, and decompressed (zlib stops there, so a small
 * gzip bomb costs at most that much memory).
 */

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

function isGzip(buf: Buffer): boolean {
  return buf.length >= 2 && buf[0] === GZIP_MAGIC_0 && buf[1] === GZIP_MAGIC_1;
}

type Inflate = (raw: Buffer, maxOutputLength: number, cb: (err: Error | null, out: Buffer) => void) => void;

/** The decompressor of each Content-Encoding svc takes (zlib stops at maxOutputLength). */
const INFLATE: Record<string, Inflate> = {
  gzip: (raw, maxOutputLength, cb) => gunzip(raw, { maxOutputLength }, cb),
  'x-gzip': (raw, maxOutputLength, cb) => gunzip(raw, { maxOutputLength }, cb),
  deflate: (raw, maxOutputLength, cb) => inflate(raw, { maxOutputLength }, cb),
  br: (raw, maxOutputLength, cb) =>
    brotliDecompress(
      raw,
      { maxOutputLength, params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC } },
      cb,
    ),
};

/**
 * Decodes a body by its Content-Encoding (gzip, x-gzip, deflate, br, identity). A gzip body sent
 * without the header (some shippers do) is recognised by its magic bytes.
 * Rejects with body_too_large past `maxBytes` (sent or decompressed), invalid_input for a corrupt
 * stream, unsupported_media_type for another encoding.
 */
export async function decompressBody(
  raw: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  const identity = enc === '' || enc === 'identity';
  const inflater = identity
    ? isGzip(raw)
      ? INFLATE.gzip
      : undefined
    : Object.hasOwn(INFLATE, enc)
      ? INFLATE[enc]
      : undefined;
  if (!identity && !inflater) throw new SvcError('unsupported_media_type', `unsupported content encoding "${enc}"`);
  if (raw.length > maxBytes) throw new SvcError('body_too_large', `body is larger than ${maxBytes} bytes`);
  return inflater ? inflateWith(inflater, raw, enc || 'gzip', maxBytes) : raw;
}

function inflateWith(fn: Inflate, raw: Buffer, enc: string, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    fn(raw, maxBytes, (err, out) => {
      if (!err) return resolve(out);
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        reject(new SvcError('body_too_large', `decompressed body is larger than ${maxBytes} bytes`));
      else reject(new SvcError('invalid_input', `cannot decompress ${enc} body: ${err.message}`));
    });
  });
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  const ct = contentType ?? '';
  const semi = ct.indexOf(';');
  return (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase();
}
