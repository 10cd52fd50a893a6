import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import type { IngestPrincipal } from '../../../src/auth/principal.js';
import { SvcError } from '../../../src/errors/svc-error.js';
import type { LogEvent } from '../../../src/events/event.js';
import type { Writer, WriteOptions } from '../../../src/events/writer.js';
import { eventsOf, type WriteBatch } from '../../../src/storage/wal/batch-encode.js';
import { sendError, toSvcError } from '../../../src/http-kit/errors.js';
import { nativeRoutes } from '../../../src/ingest/native/route.js';
import type { IngestContext } from '../../../src/ingest/common/context.js';
import { DEFAULT_EVENT_LIMITS } from '../../../src/events/limits.js';

/**
 * The native ingest route on its own Fastify instance: a token table stands in for the auth hook
 * and a recording writer for storage (the real server is exercised by test/e2e/*).
 */
class GateWriter implements Writer {
  readonly batches: { events: LogEvent[]; wait: boolean }[] = [];
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  close(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  async write(batch: WriteBatch, opts: WriteOptions): Promise<void> {
    if (this.gate) await this.gate;
    this.batches.push({ events: eventsOf(batch), wait: opts.wait });
  }
  queueDepth() {
    return { queued: 0, capacity: 10 };
  }
  get events(): LogEvent[] {
    return this.batches.flatMap((b) => b.events);
  }
}

const TOKENS: Record<string, IngestPrincipal> = {
  svi_default: { kind: 'ingest_token', id: 't1', name: 'default', pin: { env: 'default' } },
  svi_pinned: { kind: 'ingest_token', id: 't2', name: 'pinned', pin: { env: 'prod', index: 'web' } },
  svi_ghost: { kind: 'ingest_token', id: 't3', name: 'ghost', pin: { env: 'ghost' } },
};
const MAX = 64 * 1024;

describe('POST /api/ingest', () => {
  let app: FastifyInstance;
  let writer: GateWriter;
  before(async () => {
    writer = new GateWriter();
    const ctx: IngestContext = {
      writer,
      authenticate: () => {
        throw new Error('unused: the auth hook authenticates');
      },
      envExists: (n) => n === 'default' || n === 'prod',
      clock: { now: () => Date.parse('2026-11-22T12:00:00Z') },
      maxBodyBytes: MAX,
      timezone: 'UTC',
      limits: DEFAULT_EVENT_LIMITS,
    };
    app = Fastify({ bodyLimit: MAX });
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (req) => {
      const tok = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!TOKENS[tok]) throw new SvcError('invalid_credentials', 'invalid ingest token');
      req.principal = TOKENS[tok];
    });
    app.setErrorHandler((err, req, reply) => sendError(reply, toSvcError(err), req));
    await app.register(nativeRoutes, { ctx });
  });
  after(() => app.close());

  const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}, token = 'svi_default') =>
    app.inject({ method: 'POST', url, payload: body, headers: { authorization: `Bearer ${token}`, ...headers } });

  it('ingests text lines and answers the counts', async () => {
    const before = writer.events.length;
    const res = await post(
      '/api/ingest?source=app.log&host=h1',
      'Jun 14 15:16:01 combo a\r\nsecond line\r\n\r\nthird',
      { 'content-type': 'text/plain' },
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ingested: 3, errors: 0, firstErrors: [] });
    const evs = writer.events.slice(before);
    assert.deepEqual(
      evs.map((e) => [e.env, e.index, e.host, e.source, e.message]),
      [
        ['default', 'main', 'h1', 'app.log', 'Jun 14 15:16:01 combo a'],
        ['default', 'main', 'h1', 'app.log', 'second line'],
        ['default', 'main', 'h1', 'app.log', 'third'],
      ],
    );
    assert.equal(evs[0].timeUs, Date.parse('2026-06-14T15:16:01Z') * 1000);
  });

  it('calls the writer once per request, asking it to wait when full', async () => {
    const n = writer.batches.length;
    await post('/api/ingest', '{"a":1}\n{"a":2}\n', { 'content-type': 'application/x-ndjson' });
    assert.equal(writer.batches.length, n + 1);
    assert.equal(writer.batches[n].wait, true);
  });

  it('counts malformed NDJSON lines without ingesting them', async () => {
    const res = await post('/api/ingest', '{"message":"ok"}\nnot json\n{"message":"ok2"}', {
      'content-type': 'application/x-ndjson',
    });
    const body = res.json();
    assert.equal(res.statusCode, 200);
    assert.equal(body.ingested, 2);
    assert.equal(body.errors, 1);
    assert.equal(body.firstErrors[0].line, 2);
  });

  it('accepts a gzip body', async () => {
    const res = await post('/api/ingest', gzipSync('{"message":"zipped"}\n'), {
      'content-type': 'application/x-ndjson',
      'content-encoding': 'gzip',
    });
    assert.deepEqual(res.json(), { ingested: 1, errors: 0, firstErrors: [] });
    assert.equal(writer.events.at(-1)?.message, 'zipped');
  });

  it('accepts a brotli body', async () => {
    const res = await post('/api/ingest', brotliCompressSync('{"message":"squeezed"}\n'), {
      'content-type': 'application/x-ndjson',
      'content-encoding': 'br',
    });
    assert.deepEqual(res.json(), { ingested: 1, errors: 0, firstErrors: [] });
    assert.equal(writer.events.at(-1)?.message, 'squeezed');
  });

  it('answers 413 when the decompressed body passes the limit', async () => {
    const res = await post('/api/ingest', gzipSync(Buffer.alloc(MAX + 1, 'a')), {
      'content-type': 'text/plain',
      'content-encoding': 'gzip',
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.code, 'body_too_large');
  });

  it('answers 413 when the raw body passes the limit', async () => {
    const res = await post('/api/ingest', Buffer.alloc(MAX + 1, 'a'), { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 413);
  });

  it('answers 400 for a corrupt gzip body', async () => {
    const res = await post('/api/ingest', Buffer.from([0x1f, 0x8b, 1, 2, 3]), { 'content-encoding': 'gzip' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'invalid_input');
  });

  it('answers 400 unknown environment when the pinned env does not exist', async () => {
    const res = await post('/api/ingest', 'x', { 'content-type': 'text/plain' }, 'svi_ghost');
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().error, { code: 'unknown_environment', message: 'unknown environment: "ghost"' });
  });

  it('takes the index from the query when the token pins none', async () => {
    await post('/api/ingest?env=default&index=app', 'x', { 'content-type': 'text/plain' });
    assert.equal(writer.events.at(-1)?.index, 'app');
  });

  it('uses the token pin and refuses a query naming another env or index', async () => {
    await post('/api/ingest', 'x', { 'content-type': 'text/plain' }, 'svi_pinned');
    assert.deepEqual([writer.events.at(-1)?.env, writer.events.at(-1)?.index], ['prod', 'web']);
    const res = await post('/api/ingest?env=default', 'x', { 'content-type': 'text/plain' }, 'svi_pinned');
    assert.equal(res.statusCode, 403);
    const res2 = await post('/api/ingest?index=other', 'x', { 'content-type': 'text/plain' }, 'svi_pinned');
    assert.equal(res2.statusCode, 403);
  });

  it('refuses an index name that is not a plain name', async () => {
    const res = await post('/api/ingest?index=..%2Fetc', 'x', { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'invalid_input');
  });

  it('refuses a reserved index', async () => {
    const res = await post('/api/ingest?index=_svclogs', 'x', { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'reserved_name');
  });

  it('sniffs the format when the content type says nothing (curl --data-binary)', async () => {
    await post('/api/ingest', '{"message":"from curl","k":"v"}\n', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    assert.equal(writer.events.at(-1)?.message, 'from curl');
    await post('/api/ingest', 'plain words\n', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(writer.events.at(-1)?.message, 'plain words');
  });

  it('answers with no content type at all', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/ingest',
      payload: Buffer.from('raw line'),
      headers: { authorization: 'Bearer svi_default' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().ingested, 1);
  });

  it('accepts a JSON array as application/json', async () => {
    const res = await post('/api/ingest', '[{"message":"a"},{"message":"b"}]', { 'content-type': 'application/json' });
    assert.equal(res.json().ingested, 2);
  });

  it('waits for the writer instead of failing when the queue is full', async () => {
    writer.close();
    let answered = false;
    const p = post('/api/ingest', 'waiting line', { 'content-type': 'text/plain' }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(answered, false);
    writer.release();
    const res = await p;
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().ingested, 1);
  });

  it('answers an empty body with zero events', async () => {
    const res = await post('/api/ingest', '', { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { ingested: 0, errors: 0, firstErrors: [] });
  });
});
