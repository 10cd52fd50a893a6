import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeEvents, openStorage, type TestStorage } from '../storage/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, createIngestToken } from '../helpers/auth.js';
import { QueryService } from '../../src/query/service.js';
import { SYSTEM_PRINCIPAL } from '../../src/auth/principal.js';
import { isSvcError } from '../../src/errors/svc-error.js';
import type { EventJson, ExportHead, ExportSink } from '../../src/query/types.js';

/**
 * An export streams: DuckDB produces the next chunk only when the sink took the last one, the
 * search time limit stops a slow statement but not a slow reader, and a client that goes away or
 * stops reading ends it.
 */

/** A sink that records what it gets and can hold each chunk until the test lets it go. */
class HeldSink implements ExportSink {
  head: ExportHead | undefined;
  chunks = 0;
  events_: EventJson[] = [];
  rows_: unknown[][] = [];
  private release: (() => void) | undefined;
  private arrived: (() => void) | undefined;

  constructor(
    private readonly hold = false,
    private readonly delayMs = 0,
  ) {}

  async begin(head: ExportHead): Promise<void> {
    this.head = head;
  }
  async events(batch: EventJson[]): Promise<void> {
    this.events_.push(...batch);
    await this.took();
  }
  async rows(batch: unknown[][]): Promise<void> {
    this.rows_.push(...batch);
    await this.took();
  }
  private async took(): Promise<void> {
    this.chunks++;
    this.arrived?.();
    if (this.delayMs) await sleep(this.delayMs);
    if (this.hold) await new Promise<void>((r) => (this.release = r));
  }
  /** Resolves once the next chunk has arrived. */
  next(): Promise<void> {
    return new Promise((r) => (this.arrived = r));
  }
  letGo(): void {
    this.release?.();
  }
}

describe('export streaming in the query service', () => {
  let st: TestStorage;
  const N = 50_000;

  before(async () => {
    st = await openStorage();
    await st.engine.writer.write(makeEvents(N), { wait: true });
  });
  after(async () => {
    await st.close();
  });

  it('asks DuckDB for the next chunk only when the sink took the last one', async () => {
    const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const sink = new HeldSink(true);
    const arrived = sink.next();
    const ac = new AbortController();
    const run = svc.export(SYSTEM_PRINCIPAL, { q: '*', max: N, signal: ac.signal }, sink);
    await arrived;
    await sleep(300);
    assert.equal(sink.chunks, 1, 'nothing more while the sink holds the first chunk');
    const second = sink.next();
    sink.letGo();
    await second;
    await sleep(100);
    assert.equal(sink.chunks, 2);
    ac.abort(new Error('gone'));
    sink.letGo();
    await assert.rejects(run, (e: unknown) => isSvcError(e) && e.code === 'request_cancelled');
    assert.ok(sink.events_.length < N);
  });

  it('keeps going past the time limit once rows flow, newest first, every event once', async () => {
    // a limit generous enough for the first rows on a loaded machine (at 1 s, a CI machine with a
    // load average of 11 timed out before them); the sink holds the first chunk until it has passed
    const LIMIT_MS = 4000;
    const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock, timeoutMs: LIMIT_MS });
    const sink = new HeldSink(true);
    const t0 = Date.now();
    const first = sink.next();
    const run = svc.export(SYSTEM_PRINCIPAL, { q: '*', max: N, fieldList: true }, sink);
    await first;
    await sleep(Math.max(0, t0 + LIMIT_MS + 300 - Date.now()));
    const letGo = setInterval(() => sink.letGo(), 5);
    try {
      const done = await run;
      assert.ok(Date.now() - t0 > LIMIT_MS, `took ${Date.now() - t0} ms, longer than the limit`);
      assert.deepEqual(done, { written: N, mode: 'events' });
    } finally {
      clearInterval(letGo);
    }
    assert.deepEqual(sink.head, { mode: 'events', fields: ['even', 'ratio', 'seq', 'tag'] });
    assert.equal(new Set(sink.events_.map((e) => e.fields.seq)).size, N);
    assert.ok(sink.events_.every((e, i) => i === 0 || e.time <= sink.events_[i - 1].time));
  });

  it('stops a statement that runs past the time limit before its first rows, without beginning the sink', async () => {
    const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock, timeoutMs: 1 });
    const sink = new HeldSink();
    await assert.rejects(
      svc.export(SYSTEM_PRINCIPAL, { q: '* | eval a = lower(message) . host | stats dc(a) by host' }, sink),
      (e: unknown) => isSvcError(e) && e.code === 'query_timeout',
    );
    assert.equal(sink.head, undefined);
  });

  it('streams a table without the search cap on rows', async () => {
    const svc = new QueryService({ store: st.engine, control: st.control, clock: st.clock });
    const sink = new HeldSink();
    const done = await svc.export(SYSTEM_PRINCIPAL, { q: '* | stats count by seq | sort -seq', max: 20_000 }, sink);
    assert.deepEqual(done, { written: 20_000, mode: 'table' });
    assert.deepEqual(sink.head, { mode: 'table', columns: ['seq', 'count'] });
    assert.deepEqual(sink.rows_[0], [N - 1, 1]);
    assert.ok(sink.chunks > 1);
  });
});

describe('export streaming over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  const N = 30_000;
  const PAD = 'x'.repeat(1200);

  before(async () => {
    // a one-second search limit, which a slow reader outlasts; a client that reads nothing for
    // three seconds is cut off
    srv = await startTestServer({ SVC_SEARCH_TIMEOUT_SECS: '1', SVC_REQUEST_TIMEOUT_SECS: '3' });
    admin = await adminToken(srv);
    const token = await createIngestToken(srv, { env: 'default', index: 'big' });
    for (let part = 0; part < 3; part++) {
      const lines = Array.from({ length: N / 3 }, (_, k) => {
        const i = part * (N / 3) + k;
        return JSON.stringify({
          time: new Date(Date.UTC(2025, 0, 1) + i * 10).toISOString(),
          message: `row ${i} ${PAD}`,
          seq: i,
        });
      });
      const res = await fetch(`${srv.url}/api/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
        body: lines.join('\n'),
      });
      assert.equal(res.status, 200);
    }
  });
  after(async () => {
    await srv.close();
  });

  const open = (signal?: AbortSignal) =>
    fetch(`${srv.url}/api/export?${new URLSearchParams({ q: '*', index: 'big', format: 'ndjson', max: String(N) })}`, {
      headers: { authorization: `Bearer ${admin}` },
      signal,
    });

  async function readAll(
    reader: ReadableStreamDefaultReader<Uint8Array>,
    pauseMs = 0,
  ): Promise<{ bytes: number; lines: number }> {
    let bytes = 0;
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes, lines };
      bytes += value.length;
      for (const b of value) if (b === 10) lines++;
      if (pauseMs && bytes > 0) {
        await sleep(pauseMs);
        pauseMs = 0;
      }
    }
  }

  it('serves a reader slower than the search time limit to the end', async () => {
    const res = await open();
    assert.equal(res.status, 200);
    // ~37 MB: far more than the socket and client buffers hold, so the server waits for drain
    // for as long as this reader sleeps, beyond the one-second limit
    const got = await readAll(res.body!.getReader(), 1800);
    assert.equal(got.lines, N);
    assert.ok(got.bytes > 32 * 2 ** 20, `${got.bytes} bytes`);
  });

  it('cuts off a client that stops reading, and serves the next export', async () => {
    const res = await open();
    const reader = res.body!.getReader();
    await reader.read();
    await sleep(4500);
    await assert.rejects(readAll(reader), 'the connection was cut before the end');
    const again = await fetch(`${srv.url}/api/export?q=*&index=big&format=csv&max=3`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal((await again.text()).split('\r\n').filter(Boolean).length, 4);
  });

  it('stops when the client goes away, and serves the next export', async () => {
    // node:http rather than fetch: an aborted fetch leaves a spare connection open that holds the
    // server's close for its keep-alive time
    await new Promise<void>((resolve, reject) => {
      const req = http.get(
        `${srv.url}/api/export?q=*&index=big&format=ndjson`,
        { headers: { authorization: `Bearer ${admin}` } },
        (res) => {
          assert.equal(res.statusCode, 200);
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    });
    await sleep(200);
    const again = await open();
    assert.equal((await readAll(again.body!.getReader())).lines, N);
  });
});
