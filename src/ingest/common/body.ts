import { gunzipSync, inflateSync, brotliDecompressSync, constants } from 'node:zlib';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Request bodies of the compatibility endpoints: raw bytes, decompressed here with a bound on the
 * decompressed size so a small gzip bomb cannot blow up memory (zlib stops at maxOutputLength).
 */

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

export function isGzip(buf: Buffer): boolean {
  return buf.length >= 2 && buf[0] === GZIP_MAGIC_0 && buf[1] === GZIP_MAGIC_1;
}

/**
 * Decodes a body by its Content-Encoding (gzip, x-gzip, deflate, br, identity). A gzip body sent
 * without the header (some shippers do) is recognised by its magic bytes.
 * Throws body_too_large past `maxBytes` decompressed, invalid_input for a corrupt stream.
 */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  try {
    if (enc === 'gzip' || enc === 'x-gzip' || ((enc === '' || enc === 'identity') && isGzip(raw))) {
      return gunzipSync(raw, { maxOutputLength: maxBytes });
    }
    if (enc === 'deflate') return inflateSync(raw, { maxOutputLength: maxBytes });
    if (enc === 'br') return brotliDecompressSync(raw, { maxOutputLength: maxBytes, params: { [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC } });
  } catch (e) {
    const err = e as { code?: string };
    if (err.code === 'ERR_BUFFER_TOO_LARGE') throw new SvcError('body_too_large', `decompressed body is larger than ${maxBytes} bytes`);
    throw new SvcError('invalid_input', `cannot decompress ${enc || 'gzip'} body: ${(e as Error).message}`);
  }
  if (enc !== '' && enc !== 'identity') throw new SvcError('unsupported_media_type', `unsupported content encoding "${enc}"`);
  if (raw.length > maxBytes) throw new SvcError('body_too_large', `body is larger than ${maxBytes} bytes`);
  return raw;
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}
