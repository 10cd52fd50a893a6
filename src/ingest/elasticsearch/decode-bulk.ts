import { randomBytes } from 'node:crypto';
import type { IngestPrincipal } from '../../auth/principal.js';
import { SvcError, isSvcError } from '../../errors/svc-error.js';
import type { LogEvent } from '../../events/event.js';
import { eventFromObject } from '../../events/flatten.js';
import { EventLimitError, fitEvent, type EventLimits } from '../../events/limits.js';
import { timeContext } from '../../events/timestamp.js';
import { TargetResolver } from '../common/context.js';
import type { DecodeKind } from '../common/decode-pool.js';
import { BulkSyntaxError, parseBulk, type BulkOp } from './bulk.js';
import { itemError, type BulkItem, type BulkItemError } from './bulk-item.js';

/**
 * One `_bulk` body to decode, as plain data so it runs on the event loop or a decode worker
 * (ingest/common/decode-pool.ts) with the same answer.
 */
export interface EsBulkJob {
  /** The decompressed body. */
  body: Uint8Array;
  /** The `{index}` of `/{index}/_bulk`. */
  pathIndex?: string;
  principal: IngestPrincipal;
  /** Names of the environments that exist now (the token's env must be one). */
  envs: string[];
  nowMs: number;
  timezone: string;
  /** Size, field count and time limits of every event (events/limits.ts). */
  limits: EventLimits;
}

/** Per-item answers and the accepted documents as events (`items[itemOf[k]]` ↔ event k). */
export interface EsBulkDecoded {
  items: BulkItem[];
  itemOf: number[];
  events: LogEvent[];
}

// ids svc makes up for documents sent without one; the random prefix keeps threads apart
const ID_PREFIX = randomBytes(6).toString('base64url');
let idSeq = 0;
function newId(): string {
  return ID_PREFIX + (idSeq++).toString(36);
}

function failed(op: BulkOp, id: string | undefined, error: BulkItemError): BulkItem {
  return { op: op.op, index: op.index ?? '', id, error };
}

/**
 * Parses and decodes a bulk body. Throws SvcError invalid_input for a malformed action line or an
 * empty body, unknown_environment when the token's env is gone; every other problem is an item's.
 */
export function decodeBulkJob(job: EsBulkJob): EsBulkDecoded {
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  let ops: BulkOp[];
  try {
    ops = parseBulk(body, job.pathIndex);
  } catch (e) {
    if (e instanceof BulkSyntaxError) throw new SvcError('invalid_input', e.message);
    throw e;
  }
  if (ops.length === 0) throw new SvcError('invalid_input', 'request body is required');
  const envs = new Set(job.envs);
  const targets = new TargetResolver({ envExists: (name) => envs.has(name) }, job.principal);
  return decodeOps(targets, ops, job);
}

/** `_bulk` bodies as a decode kind: large ones go to a decode worker. */
export const ES_BULK_DECODE: DecodeKind<EsBulkJob, EsBulkDecoded> = { name: 'es_bulk', decode: decodeBulkJob };

/** Decodes the bulk operations into events and per-item answers (events[i] ↔ itemOf[i]). */
function decodeOps(
  targets: TargetResolver,
  ops: BulkOp[],
  job: Pick<EsBulkJob, 'nowMs' | 'timezone' | 'limits'>,
): EsBulkDecoded {
  const items = new Array<BulkItem>(ops.length);
  const events: LogEvent[] = [];
  const itemOf: number[] = [];
  const arrival = job.nowMs * 1000;
  const time = timeContext(job.timezone, job.nowMs, job.limits.maxFutureSecs);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.op !== 'index' && op.op !== 'create') {
      items[i] = failed(op, op.id, {
        kind: 'bad_request',
        type: 'illegal_argument_exception',
        reason: `action [${op.op}] is not supported: svc is append-only`,
      });
      continue;
    }
    const id = op.id ?? newId();
    if (!op.doc) {
      items[i] = failed(op, id, {
        kind: 'bad_request',
        type: 'document_parsing_exception',
        reason: op.docError ?? 'missing source',
      });
      continue;
    }
    try {
      const t = targets.resolve(op.index);
      const ev = eventFromObject(
        op.doc,
        op.raw,
        { env: t.env, index: t.index, timeUs: arrival, host: '', source: '', sourcetype: 'elasticsearch' },
        time,
      );
      const refused = fitEvent(ev, job.limits);
      if (refused !== undefined) throw new EventLimitError(refused);
      events.push(ev);
      itemOf.push(i);
      items[i] = { op: op.op, index: op.index ?? '', id };
    } catch (e) {
      if (e instanceof EventLimitError) {
        // a limit of the document, as Elasticsearch answers a mapping limit: this item only
        items[i] = failed(op, id, { kind: 'bad_request', type: 'document_parsing_exception', reason: e.message });
        continue;
      }
      // the env comes from the token alone: an unknown one refuses the whole request
      if (!isSvcError(e) || e.code === 'unknown_environment') throw e;
      items[i] = failed(op, id, itemError(e));
    }
  }
  return { items, events, itemOf };
}
