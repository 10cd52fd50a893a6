import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { adminToken, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { HOSTILE_CASES, type HostileCase, type Credentials } from './hostile-input.cases.js';

/**
 * The hostile-input suite (issue 23): several hundred requests an attacker or a broken shipper
 * sends, over every surface (bodies, field names, timestamps, names, query depth, auth). Each
 * answer must have its documented status, name the problem in its error, and never be a 5xx. A
 * canary set ingested before the suite over every protocol must be whole after it and after a
 * restart, and the service must still say it is healthy.
 */

const ENV = 'hostile';
const CANARY_PER_PROTOCOL = 40;
const PROTOCOLS = ['native', 'bulk', 'hec', 'loki', 'otlp'] as const;

interface Answer {
  status: number;
  text: string;
  type: string;
}

describe('hostile input', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
  let srv: TestServer;
  let creds: Credentials;
  const nowNs = () => BigInt(Date.now()) * 1_000_000n;

  async function start(): Promise<void> {
    srv = await startTestServer({}, { dataDir });
  }

  async function send(c: HostileCase): Promise<Answer> {
    const r = c.request(creds);
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    let body: Buffer | string | undefined = r.body;
    if (r.gzip && body !== undefined) {
      body = gzipSync(typeof body === 'string' ? Buffer.from(body) : body);
      headers['content-encoding'] = 'gzip';
    }
    const res = await fetch(`${srv.url}${r.path}`, {
      method: r.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body: body === undefined || typeof body === 'string' ? body : new Uint8Array(body),
    });
    return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
  }

  async function search(q: string, from = '-7d'): Promise<{ rows: unknown[][]; events: unknown[] }> {
    const qs = new URLSearchParams({ q, env: ENV, from, limit: '10' });
    const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${creds.searchKey}` } });
    const body = (await res.json()) as { rows?: unknown[][]; events?: unknown[] };
    assert.equal(res.status, 200, `search ${q}: ${JSON.stringify(body)}`);
    return { rows: body.rows ?? [], events: body.events ?? [] };
  }

  async function count(q: string, from = '-7d'): Promise<number> {
    const { rows } = await search(`${q} | stats count`, from);
    return Number(rows[0]?.[0] ?? 0);
  }

  async function ingestCanaries(): Promise<void> {
    const n = CANARY_PER_PROTOCOL;
    const ids = (p: string) => Array.from({ length: n }, (_, i) => `${p}-${i}`);
    const ts = new Date(Date.now() - 60_000).toISOString();
    const post = async (path: string, auth: string, type: string, body: string) => {
      const res = await fetch(`${srv.url}${path}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': type },
        body,
      });
      assert.ok(res.status >= 200 && res.status < 300, `canary ${path}: ${res.status} ${await res.text()}`);
    };
    const t = creds.ingestToken;
    await post(
      '/api/ingest',
      `Bearer ${t}`,
      'application/x-ndjson',
      ids('native')
        .map((id) => JSON.stringify({ _time: ts, message: `canaryzz ${id}` }))
        .join('\n'),
    );
    await post(
      '/_bulk',
      `ApiKey ${t}`,
      'application/x-ndjson',
      ids('bulk')
        .map(
          (id) =>
            `{"create":{"_index":"canary"}}\n${JSON.stringify({ '@timestamp': ts, message: `canaryzz ${id}` })}\n`,
        )
        .join(''),
    );
    await post(
      '/services/collector/event',
      `Splunk ${t}`,
      'application/json',
      ids('hec')
        .map((id) => JSON.stringify({ time: Date.now() / 1000 - 60, event: `canaryzz ${id}` }))
        .join(''),
    );
    await post(
      '/loki/api/v1/push',
      `Bearer ${t}`,
      'application/json',
      JSON.stringify({
        streams: [
          {
            stream: { job: 'canary' },
            values: ids('loki').map((id) => [String(nowNs() - 60_000_000_000n), `canaryzz ${id}`]),
          },
        ],
      }),
    );
    await post(
      '/v1/logs',
      `Bearer ${t}`,
      'application/json',
      JSON.stringify({
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: ids('otlp').map((id) => ({
                  timeUnixNano: String(nowNs() - 60_000_000_000n),
                  body: { stringValue: `canaryzz ${id}` },
                })),
              },
            ],
          },
        ],
      }),
    );
  }

  async function assertCanariesWhole(when: string): Promise<void> {
    assert.equal(
      await count('canaryzz'),
      CANARY_PER_PROTOCOL * PROTOCOLS.length,
      `every canary event is searchable ${when}`,
    );
    for (const p of PROTOCOLS)
      assert.equal(await count(`canaryzz "${p}-"`), CANARY_PER_PROTOCOL, `${p} canaries ${when}`);
  }

  async function assertHealthy(when: string): Promise<void> {
    const res = await fetch(`${srv.url}/api/health`);
    const body = (await res.json()) as { status: string };
    assert.equal(res.status, 200, when);
    assert.equal(body.status, 'ok', `health ${when}: ${JSON.stringify(body)}`);
  }

  before(async () => {
    await start();
    await createEnv(srv, ENV);
    await adminToken(srv);
    creds = {
      ingestToken: await createIngestToken(srv, { env: ENV }),
      pinnedToken: await createIngestToken(srv, { env: ENV, index: 'pinned' }),
      searchKey: await createApiKey(srv, { scopes: ['standard'] }),
      adminKey: await createApiKey(srv, { scopes: ['admin'] }),
      mcpKey: await createApiKey(srv, { scopes: ['mcp'] }),
      env: ENV,
    };
    await ingestCanaries();
    await assertCanariesWhole('before the suite');
  });

  after(async () => {
    await srv?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`has at least 300 cases over every surface (${HOSTILE_CASES.length})`, () => {
    assert.ok(HOSTILE_CASES.length >= 300, `${HOSTILE_CASES.length} cases`);
    const surfaces = new Set(HOSTILE_CASES.map((c) => c.surface));
    for (const s of ['body', 'field-name', 'timestamp', 'name', 'query', 'auth'])
      assert.ok(surfaces.has(s as HostileCase['surface']), s);
  });

  const failures: string[] = [];
  it('answers every hostile request with its documented status, naming the problem, never a 5xx', async () => {
    for (const c of HOSTILE_CASES) {
      const what = `[${c.surface}] ${c.name}`;
      let a: Answer;
      try {
        a = await send(c);
      } catch (e) {
        failures.push(`${what}: request failed: ${(e as Error).message}`);
        continue;
      }
      const statuses = Array.isArray(c.status) ? c.status : [c.status];
      if (a.status >= 500) failures.push(`${what}: ${a.status} ${a.text.slice(0, 200)}`);
      else if (!statuses.includes(a.status))
        failures.push(`${what}: want ${statuses.join('|')}, got ${a.status} ${a.text.slice(0, 200)}`);
      else if (a.status >= 400 && c.errorShape !== 'text' && c.errorShape !== 'protobuf' && !/json/.test(a.type))
        failures.push(`${what}: error is not JSON (${a.type})`);
      else if (c.names && !c.names.test(a.text))
        failures.push(`${what}: answer does not name the problem (${String(c.names)}): ${a.text.slice(0, 200)}`);
      else if (c.check) {
        const why = c.check(a.text);
        if (why) failures.push(`${what}: ${why}`);
      }
    }
    assert.deepEqual(
      failures,
      [],
      `${failures.length} of ${HOSTILE_CASES.length} cases failed:\n${failures.join('\n')}`,
    );
  });

  it('stored what it acknowledged of the hostile requests at the arrival time, keeping the original time', async () => {
    const marked = HOSTILE_CASES.filter((c) => c.storedNow).length;
    assert.ok(marked > 20);
    assert.equal(
      await count('tsmarkzz', '-2h'),
      marked,
      'every event with a time outside the window is searchable at its arrival time',
    );
    const kept = HOSTILE_CASES.filter((c) => c.storedNow && c.keepsTimeOriginal !== false).length;
    assert.equal(await count('tsmarkzz time_original=*', '-2h'), kept, 'each keeps its original time in time_original');
  });

  it('keeps every canary event searchable and stays healthy after the suite', async () => {
    await assertCanariesWhole('after the suite');
    await assertHealthy('after the suite');
  });

  it('keeps every canary event after a restart', async () => {
    await srv.close();
    await start();
    await assertCanariesWhole('after a restart');
    await assertHealthy('after a restart');
  });
});
