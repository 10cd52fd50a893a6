import { gunzip, inflate, type InputType, type ZlibOptions } from 'node:zlib';
import { SvcError } from '../../errors/svc-error.js';

/**
 * Decompresses a native ingest body by its Content-Encoding (gzip, x-gzip, deflate, identity) on
 * libuv's thread pool, so a large gzip body does not stall the event loop the way a *Sync call
 * would. The decompressed size is bounded by `maxBytes` (zlib stops there: a gzip bomb costs at
 * most that much memory) → body_too_large (413). A gzip body sent without the header is
 * recognised by its magic bytes.
 */
export async function decompressBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  const gz = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
  if (enc === 'gzip' || enc === 'x-gzip' || ((enc === '' || enc === 'identity') && gz)) return inflateWith(gunzip, raw, enc || 'gzip', maxBytes);
  if (enc === 'deflate') return inflateWith(inflate, raw, enc, maxBytes);
  if (enc !== '' && enc !== 'identity') throw new SvcError('unsupported_media_type', `unsupported content encoding "${enc}"`);
  if (raw.length > maxBytes) throw new SvcError('body_too_large', `body is larger than ${maxBytes} bytes`);
  return raw;
}

type ZlibFn = (buf: InputType, opts: ZlibOptions, cb: (err: Error | null, out: Buffer) => void) => void;

function inflateWith(fn: ZlibFn, raw: Buffer, enc: string, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    fn(raw, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) return resolve(out);
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') reject(new SvcError('body_too_large', `decompressed body is larger than ${maxBytes} bytes`));
      else reject(new SvcError('invalid_input', `cannot decompress ${enc} body: ${err.message}`));
    });
  });
}
