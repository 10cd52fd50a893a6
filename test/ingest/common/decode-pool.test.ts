import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogEvent } from '../../../src/events/event.js';
import { DecodePool, type DecodeKind } from '../../../src/ingest/common/decode-pool.js';
import { ES_BULK_DECODE, type EsBulkJob } from '../../../src/ingest/elasticsearch/decode-bulk.js';
import { esItemStatus } from '../../../src/ingest/elasticsearch/respond.js';
import { NATIVE_DECODE, type DecodeJob } from '../../../src/ingest/native/decode-job.js';
import { OTLP_DECODE } from '../../../src/ingest/otlp/decode-job.js';
import { ExportLogsServiceRequest } from '../../../src/ingest/otlp/logs-proto.js';
import { encodeBatch, eventsOf, walBatch } from '../../../src/storage/wal/batch-encode.js';
import { DECODE_WORKER_URL } from '../../../src/workers/paths.js';
import { SvcError } from '../../../src/errors/svc-error.js';
import { DEFAULT_EVENT_LIMITS } from '../../../src/events/limits.js';

/**
 * The decode workers must answer exactly what decoding on the event loop answers: the same WAL
 * bytes, the same live accounting, the same errors (SvcErrors cross the thread with their code),
 * for every body shape of native ingest, Elasticsearch `_bulk` and OTLP exports.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function job(mediaType: string, text: string, over: Partial<DecodeJob['defaults']> = {}): DecodeJob {
  return {
    mediaType,
    body: Buffer.from(text),
    defaults: {
      env: 'default',
      index: 'main',
      host: 'h1',
      source: 'src',
      sourcetype: 'st',
      timeUs: NOW * 1000,
      ...over,
    },
    timezone: 'UTC',
    nowMs: NOW,
    limits: DEFAULT_EVENT_LIMITS,
  };
}

/** What decoding on the event loop and then encoding for the WAL answers: what a worker must answer. */
function inline<J extends { body: Uint8Array }, R extends { events: LogEvent[] }>(kind: DecodeKind<J, R>, j: J) {
  const { events, ...extras } = kind.decode(j);
  return { ...extras, batch: encodeBatch(events) };
}

/** A pool's answer with its batch opened (the pool hands it on as storage's opaque EncodedBatch). */
async function onPool<J extends { body: Uint8Array }, R extends { events: LogEvent[] }>(
  pool: DecodePool,
  kind: DecodeKind<J, R>,
  j: J,
) {
  const r = await pool.run(kind, j);
  return { ...(r as Omit<R, 'events'>), batch: walBatch(r.batch) };
}

function realFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...realFiles(p));
    else if (/\.(log|json)$|server\.log/.test(e.name)) out.push(p);
  }
  return out.sort();
}

function bulkJob(text: string, over: Partial<EsBulkJob> = {}): EsBulkJob {
  return {
    body: Buffer.from(text),
    principal: { kind: 'ingest_token', id: 't1', name: 'tok', pin: { env: 'default' } },
    envs: ['default'],
    nowMs: NOW,
    timezone: 'UTC',
    limits: DEFAULT_EVENT_LIMITS,
    ...over,
  };
}

describe('decode pool', () => {
  let pool: DecodePool;
  before(() => {
    pool = new DecodePool(2, DECODE_WORKER_URL);
  });
  after(async () => {
    await pool.close();
  });

  it('answers what inline decoding answers, byte for byte, for NDJSON, JSON arrays and text with errors', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 5000; i++) {
      lines.push(
        i % 997 === 0
          ? `{"broken": ${i}`
          : JSON.stringify({
              time: new Date(NOW - i * 1000).toISOString(),
              message: `event ${i} from "web"`,
              user: { id: i, tags: ['a', i] },
              ok: i % 2 === 0,
            }),
      );
    }
    const jobs = [
      job('application/x-ndjson', lines.join('\n')),
      job('application/json', `[${lines.filter((l) => !l.includes('broken')).join(',')}, 7]`),
      job(
        'text/plain',
        lines.map((l, i) => `2026-11-0${1 + (i % 9)}T10:00:00Z line ${i}\n  continuation ${i}`).join('\r\n'),
      ),
      job('', ''),
    ];
    for (const j of jobs) {
      const want = inline(NATIVE_DECODE, j);
      const got = await onPool(pool, NATIVE_DECODE, j);
      assert.equal(got.batch.count, want.batch.count);
      assert.deepEqual(Buffer.from(got.batch.wal), Buffer.from(want.batch.wal));
      assert.deepEqual(got.batch.parts, want.batch.parts);
      assert.equal(got.errors, want.errors);
      assert.deepEqual(got.firstErrors, want.firstErrors);
    }
    const nd = await onPool(pool, NATIVE_DECODE, jobs[0]);
    assert.equal(nd.batch.count, 5000 - 6);
    assert.equal(nd.errors, 6);
    assert.deepEqual(eventsOf(nd.batch)[0].fields, { 'user.id': 1, 'user.tags': '["a",1]', ok: false });
  });

  it('decodes many bodies at once and keeps each answer with its request', async () => {
    const bodies = Array.from({ length: 40 }, (_, k) =>
      Array.from({ length: 200 + k }, (_, i) => JSON.stringify({ message: `body ${k} line ${i}` })).join('\n'),
    );
    const answers = await Promise.all(bodies.map((b) => onPool(pool, NATIVE_DECODE, job('application/x-ndjson', b))));
    answers.forEach((a, k) => {
      assert.equal(a.batch.count, 200 + k);
      assert.equal(eventsOf(a.batch)[0].message, `body ${k} line 0`);
    });
  });

  it('answers like inline decoding for every real log file', async (t) => {
    if (!existsSync(DATA)) {
      t.skip(`no real data at ${DATA} (set SVC_REAL_DATA)`);
      console.log(`skipped: no real data at ${DATA}`);
      return;
    }
    for (const file of realFiles(DATA)) {
      const j = job(file.endsWith('.json') ? 'application/x-ndjson' : 'text/plain', readFileSync(file, 'utf8'));
      const want = inline(NATIVE_DECODE, j);
      const got = await onPool(pool, NATIVE_DECODE, j);
      assert.equal(got.batch.count, want.batch.count, file);
      assert.ok(Buffer.from(got.batch.wal).equals(Buffer.from(want.batch.wal)), file);
      assert.deepEqual(got.batch.parts, want.batch.parts, file);
    }
  });

  it('answers an Elasticsearch bulk body like inline decoding, items and ids included', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 500 === 7) lines.push('{"delete":{"_id":"x"}}');
      else if (i % 400 === 3) lines.push('{"index":{"_index":"_hidden"}}', '{"message":"reserved"}');
      else
        lines.push(
          `{"create":{"_index":"web","_id":"id-${i}"}}`,
          JSON.stringify({
            '@timestamp': new Date(NOW - i).toISOString(),
            message: `GET /p/${i}`,
            http: { status: 200 + (i % 3) },
          }),
        );
    }
    const j = bulkJob(lines.join('\n') + '\n', { pathIndex: 'logs' });
    const want = inline(ES_BULK_DECODE, j);
    const got = await onPool(pool, ES_BULK_DECODE, j);
    // ids svc makes up differ between threads by design (a random prefix per thread): compare their presence
    const norm = (items: typeof want.items) =>
      items.map((it) => ({ ...it, id: it.id?.startsWith('id-') ? it.id : typeof it.id }));
    assert.deepEqual(norm(got.items), norm(want.items));
    assert.deepEqual(got.itemOf, want.itemOf);
    assert.ok(Buffer.from(got.batch.wal).equals(Buffer.from(want.batch.wal)));
    assert.equal(got.batch.count, want.itemOf.length);
    assert.ok(
      got.items.some((it) => esItemStatus(it) === 400) &&
        got.items.some((it) => esItemStatus(it) === 403 || esItemStatus(it) === 400),
    );
    assert.equal(eventsOf(got.batch)[0].fields['http.status'], 200);
  });

  it('answers an OTLP export like inline decoding, refused records counted, protobuf and JSON', async () => {
    const logRecords = Array.from({ length: 3000 }, (_, i) => ({
      timeUnixNano: String(BigInt(NOW - i) * 1_000_000n),
      severityText: i % 10 ? 'INFO' : 'ERROR',
      body:
        i % 3
          ? { stringValue: `order ${i} done` }
          : {
              kvlistValue: {
                values: [
                  { key: 'message', value: { stringValue: `map ${i}` } },
                  { key: 'n', value: { intValue: String(i) } },
                ],
              },
            },
      attributes: [
        { key: 'http.route', value: { stringValue: `/o/${i % 7}` } },
        ...(i % 500 === 1 ? [{ key: 'svc.index', value: { stringValue: '_hidden' } }] : []),
      ],
      traceId: Buffer.alloc(16, (i % 250) + 1),
    }));
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'orders' } }] },
          scopeLogs: [{ scope: { name: 's' }, logRecords }],
        },
      ],
    };
    const base = {
      principal: { kind: 'ingest_token' as const, id: 't1', name: 'tok', pin: { env: 'default' } },
      envs: ['default'],
      nowUs: NOW * 1000,
      limits: DEFAULT_EVENT_LIMITS,
    };
    const proto = {
      ...base,
      encoding: 'protobuf' as const,
      body: Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(request)).finish()),
    };
    const json = {
      ...base,
      encoding: 'json' as const,
      body: Buffer.from(
        JSON.stringify({
          ...request,
          resourceLogs: request.resourceLogs.map((rl) => ({
            ...rl,
            scopeLogs: rl.scopeLogs.map((sl) => ({
              ...sl,
              logRecords: sl.logRecords.map((r) => ({ ...r, traceId: r.traceId.toString('hex') })),
            })),
          })),
        }),
      ),
    };
    for (const j of [proto, json]) {
      assert.ok(j.body.byteLength >= 64 * 1024);
      const want = inline(OTLP_DECODE, j);
      const got = await onPool(pool, OTLP_DECODE, j);
      assert.deepEqual([got.rejected, got.reason], [want.rejected, want.reason]);
      assert.equal(got.rejected, 6);
      assert.ok(Buffer.from(got.batch.wal).equals(Buffer.from(want.batch.wal)), j.encoding);
      assert.equal(got.batch.count, 3000 - 6);
    }
    await assert.rejects(
      pool.run(OTLP_DECODE, { ...proto, body: Buffer.alloc(70_000, 0xff) }),
      (e: unknown) => e instanceof SvcError && e.code === 'invalid_input',
    );
  });

  it('rejects with the SvcError the job throws, across the thread', async () => {
    const bad = bulkJob('{"index":{}}\n{"a":1}\nnot json at all\n'.repeat(4000));
    await assert.rejects(
      pool.run(ES_BULK_DECODE, bad),
      (e: unknown) => e instanceof SvcError && e.code === 'invalid_input' && /action line/.test(e.message),
    );
    const gone = bulkJob('{"index":{}}\n{"a":1}\n'.repeat(5000), { envs: [] });
    await assert.rejects(
      pool.run(ES_BULK_DECODE, gone),
      (e: unknown) => e instanceof SvcError && e.code === 'unknown_environment',
    );
  });

  it('refuses work after close with shutting_down', async () => {
    const p = new DecodePool(1, DECODE_WORKER_URL);
    await p.close();
    await assert.rejects(
      p.run(NATIVE_DECODE, job('text/plain', 'x')),
      (e: unknown) => e instanceof SvcError && e.code === 'shutting_down',
    );
  });

  it('holds at most four jobs a worker: a caller that will not wait hears queue_full, one that will waits its turn', async () => {
    const p = new DecodePool(1, DECODE_WORKER_URL);
    try {
      const body = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
      const held = Array.from({ length: 4 }, () => p.run(NATIVE_DECODE, job('text/plain', body)));
      await assert.rejects(
        p.run(NATIVE_DECODE, job('text/plain', body), { wait: false }),
        (e: unknown) => e instanceof SvcError && e.code === 'queue_full' && e.retryAfterSecs === 1,
      );
      const waited = p.run(NATIVE_DECODE, job('text/plain', body), { wait: true });
      for (const r of [...(await Promise.all(held)), await waited]) assert.equal(eventsOf(r.batch).length, 2000);
    } finally {
      await p.close();
    }
  });
});
