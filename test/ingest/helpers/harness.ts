import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { IngestPrincipal } from '../../../src/auth/principal.js';
import { SvcError } from '../../../src/errors/svc-error.js';
import type { LogEvent } from '../../../src/events/event.js';
import type { Writer, WriteOptions } from '../../../src/events/writer.js';
import { eventsOf, type WriteBatch } from '../../../src/storage/wal/batch-encode.js';
import type { IngestContext } from '../../../src/ingest/common/context.js';
import { DEFAULT_EVENT_LIMITS } from '../../../src/events/limits.js';

/**
 * A protocol plugin on its own Fastify instance, with a writer that records what it is given and
 * a token table instead of the control plane: drives the wire format with the real clients without
 * the storage engine. End-to-end tests (test/ingest/<protocol>/e2e.test.ts) use the real server.
 */
export class RecordingWriter implements Writer {
  readonly events: LogEvent[] = [];
  /** When set, write() rejects with queue_full like a full writer queue. */
  full = false;
  /** Writes still to reject with storage_unavailable, as the engine does when the disk is full. */
  failStorage = 0;
  calls = 0;

  async write(batch: WriteBatch, opts: WriteOptions): Promise<void> {
    this.calls++;
    if (this.full && !opts.wait) throw new SvcError('queue_full', 'writer queue is full', { retryAfterSecs: 1 });
    if (this.failStorage > 0) {
      this.failStorage--;
      throw new SvcError('storage_unavailable', 'cannot write the write-ahead log (ENOSPC)', { retryAfterSecs: 0.05 });
    }
    this.events.push(...eventsOf(batch));
  }

  queueDepth() {
    return { queued: this.full ? 10 : 0, capacity: 10 };
  }
}

export const TOKENS: Record<string, IngestPrincipal> = {
  svi_default: { kind: 'ingest_token', id: 't1', name: 'default-token', pin: { env: 'default' } },
  svi_pinned: { kind: 'ingest_token', id: 't2', name: 'pinned-token', pin: { env: 'prod', index: 'web' } },
  svi_ghost: { kind: 'ingest_token', id: 't3', name: 'ghost-token', pin: { env: 'ghost' } },
};

export function testContext(writer: Writer, over: Partial<IngestContext> = {}): IngestContext {
  return {
    writer,
    authenticate(token) {
      if (token === undefined) throw new SvcError('missing_credentials', 'missing ingest token');
      const p = TOKENS[token];
      if (!p) throw new SvcError('invalid_credentials', 'invalid ingest token');
      return p;
    },
    envExists: (name) => name === 'default' || name === 'prod',
    clock: { now: () => Date.now() },
    maxBodyBytes: 1024 * 1024,
    timezone: 'UTC',
    limits: DEFAULT_EVENT_LIMITS,
    ...over,
  };
}

export interface Harness {
  app: FastifyInstance;
  url: string;
  writer: RecordingWriter;
  close(): Promise<void>;
}

export async function startHarness(
  plugin: FastifyPluginAsync<{ ctx: IngestContext }>,
  over: Partial<IngestContext> = {},
): Promise<Harness> {
  const writer = new RecordingWriter();
  const app = Fastify({ logger: false });
  await app.register(plugin, { ctx: testContext(writer, over) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, writer, close: () => app.close() };
}
