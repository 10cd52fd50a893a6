import type { Principal } from '../../auth/principal.js';
import { resolveIngestTarget } from '../../auth/rbac.js';
import { checkName } from '../../control/envs.js';
import { SvcError } from '../../errors/svc-error.js';
import { DEFAULT_INDEX } from '../../events/event.js';
import type { EventDefaults } from '../../events/flatten.js';
import { timeContext } from '../../events/time.js';
import type { IngestContext } from '../common/context.js';
import { decompressBody } from './body.js';
import { decodeJson, decodeNdjson, decodeText, type DecodeResult, type LineError } from './decode.js';

/**
 * Native ingest (`POST /api/ingest`, DESIGN 5), free of HTTP: target → decompress → decode →
 * Writer.write(events, { wait: true }). A full writer queue makes the call wait, never fail.
 *
 * Body formats by Content-Type: `text/*` → one event per line; `application/json` → a JSON
 * array of objects, one (maybe pretty-printed) object, or NDJSON; `application/x-ndjson` and the
 * other NDJSON / JSON-lines names → NDJSON; no or any other type (curl's default form type) →
 * NDJSON when the body starts with `{`, else text.
 */

export interface NativeQuery {
  env?: string;
  index?: string;
  /** Defaults for events that do not name their own host / source / sourcetype. */
  host?: string;
  source?: string;
  sourcetype?: string;
}

export interface NativeRequest {
  query: NativeQuery;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  body: Buffer;
}

export interface IngestAnswer {
  ingested: number;
  errors: number;
  firstErrors: LineError[];
}

type Decoder = typeof decodeText;

const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/jsonlines', 'application/json-seq']);

/** The decoder for a media type (lowercase, no parameters), sniffing the body when the type says nothing. */
export function decoderFor(mediaType: string, body: Buffer): Decoder {
  if (mediaType.startsWith('text/')) return decodeText;
  if (mediaType === 'application/json') return decodeJson;
  if (NDJSON_TYPES.has(mediaType) || mediaType.endsWith('+json') || mediaType.endsWith('ndjson')) return decodeNdjson;
  return startsWithBrace(body) ? decodeNdjson : decodeText;
}

function startsWithBrace(buf: Buffer): boolean {
  let i = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  while (i < buf.length && (buf[i] === 32 || buf[i] === 9 || buf[i] === 10 || buf[i] === 13)) i++;
  return buf[i] === 0x7b;
}

export function mediaTypeOf(contentType: string | undefined): string {
  const ct = contentType ?? '';
  const semi = ct.indexOf(';');
  return (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase();
}

/**
 * Ingests one request. Throws SvcError: insufficient_scope / access_denied / reserved_name (not an
 * ingest token, or a query naming another env/index than the token's pin), unknown_environment,
 * body_too_large, unsupported_media_type, invalid_input (corrupt gzip).
 */
export async function ingestNative(ctx: IngestContext, principal: Principal, req: NativeRequest): Promise<IngestAnswer> {
  const target = resolveIngestTarget(principal, { env: req.query.env, index: req.query.index }, DEFAULT_INDEX);
  // the index names a folder of the block layout: letters, digits, _ . - only
  checkName('index', target.index);
  if (!ctx.envExists(target.env)) throw new SvcError('unknown_environment', `unknown environment: "${target.env}"`);
  const body = await decompressBody(req.body, req.contentEncoding, ctx.maxBodyBytes);
  const nowMs = ctx.clock.now();
  const defaults: EventDefaults = {
    env: target.env,
    index: target.index,
    host: req.query.host ?? '',
    source: req.query.source ?? '',
    sourcetype: req.query.sourcetype ?? '',
    timeUs: nowMs * 1000,
  };
  const decode = decoderFor(mediaTypeOf(req.contentType), body);
  const r: DecodeResult = decode(body, defaults, timeContext(ctx.timezone, nowMs));
  // the whole request is one batch: one WAL group commit, acknowledged together
  if (r.events.length > 0) await ctx.writer.write(r.events, { wait: true });
  return { ingested: r.events.length, errors: r.errors, firstErrors: r.firstErrors };
}
