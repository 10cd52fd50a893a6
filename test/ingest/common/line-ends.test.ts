import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createIngestToken } from '../../helpers/auth.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';
import type { EventJson } from '../../../src/query/types.js';

/**
 * One line-end rule on every protocol: the CRs and LFs that end a message are line framing and
 * are not stored; a CR inside the text is. The same two lines, each ending in CR (a CRLF file), go
 * through every ingest protocol and must be stored identically.
 */
const ENV = 'lines';
const INDEX = 'crlf';
const PLAIN = 'crlf-rule plain line';
const INNER = 'crlf-rule inner\rcr kept';
const LINES = [PLAIN, INNER];
const PROTOCOLS = ['text', 'ndjson', 'jsonarray', 'bulk', 'hec', 'hecraw', 'loki', 'otlp', 'syslogtcp', 'syslogudp'];

describe('a trailing CR on every protocol', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-crlf-'));
  let srv: TestServer;
  let token: string;
  let key: string;
  before(async () => {
    srv = await startSyslogServer(
      dataDir,
      { env: ENV, index: INDEX },
      { SVC_SYSLOG_UDP: '127.0.0.1:0', SVC_SYSLOG_TCP: '127.0.0.1:0' },
    );
    token = await createIngestToken(srv, { env: ENV });
    key = await createApiKey(srv, { scopes: ['standard'] });
  });
  after(async () => {
    await srv.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers, body });
    assert.ok(res.status < 300, `${path}: ${res.status} ${await res.text()}`);
  };

  async function sendEverywhere(): Promise<void> {
    const bearer = { authorization: `Bearer ${token}` };
    const cr = (l: string) => `${l}\r`;
    const ns = `${Date.now()}000000`;
    await post(`/api/ingest?index=${INDEX}&source=text`, LINES.map((l) => `${l}\r\n`).join(''), {
      ...bearer,
      'content-type': 'text/plain',
    });
    await post(
      `/api/ingest?index=${INDEX}&source=ndjson`,
      LINES.map((l) => `${JSON.stringify({ message: cr(l) })}\r\n`).join(''),
      { ...bearer, 'content-type': 'application/x-ndjson' },
    );
    await post(
      `/api/ingest?index=${INDEX}&source=jsonarray`,
      JSON.stringify(LINES.map((l) => ({ message: `${l}\r\n` }))),
      { ...bearer, 'content-type': 'application/json' },
    );
    await post(
      '/_bulk',
      LINES.map((l) => `{"index":{"_index":"${INDEX}"}}\n${JSON.stringify({ message: cr(l), source: 'bulk' })}\n`).join(
        '',
      ),
      { authorization: `ApiKey ${token}`, 'content-type': 'application/x-ndjson' },
    );
    await post(
      '/services/collector/event',
      LINES.map((l) => JSON.stringify({ event: cr(l), source: 'hec', index: INDEX })).join(''),
      { authorization: `Splunk ${token}` },
    );
    await post(`/services/collector/raw?index=${INDEX}&source=hecraw`, LINES.map((l) => `${l}\r\n`).join(''), {
      authorization: `Splunk ${token}`,
    });
    const loki = { streams: [{ stream: { index: INDEX, job: 'loki' }, values: LINES.map((l) => [ns, cr(l)]) }] };
    await post('/loki/api/v1/push', JSON.stringify(loki), { ...bearer, 'content-type': 'application/json' });
    const attr = (k: string, v: string) => ({ key: k, value: { stringValue: v } });
    const otlp = {
      resourceLogs: [
        {
          resource: { attributes: [attr('svc.index', INDEX), attr('service.name', 'otlp')] },
          scopeLogs: [{ logRecords: LINES.map((l) => ({ timeUnixNano: ns, body: { stringValue: cr(l) } })) }],
        },
      ],
    };
    await post('/v1/logs', JSON.stringify(otlp), { ...bearer, 'content-type': 'application/json' });
    const syslog = (app: string, l: string) => `<13>Nov 22 10:00:00 host1 ${app}: ${l}\r`;
    await new Promise<void>((resolve, reject) => {
      const s = connect(srv.syslog!.tcpPort!, '127.0.0.1', () =>
        s.end(LINES.map((l) => `${syslog('syslogtcp', l)}\n`).join('')),
      );
      s.on('close', () => resolve());
      s.on('error', reject);
    });
    const udp = createSocket('udp4');
    for (const l of LINES)
      await new Promise<void>((resolve, reject) =>
        udp.send(syslog('syslogudp', l), srv.syslog!.udpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
      );
    udp.close();
  }

  async function exported(): Promise<EventJson[]> {
    const qs = new URLSearchParams({
      q: '*',
      env: ENV,
      index: INDEX,
      from: '2000-01-01T00:00:00Z',
      to: new Date(Date.now() + 86_400_000).toISOString(),
      format: 'ndjson',
    });
    const res = await fetch(`${srv.url}/api/export?${qs}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    return (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EventJson);
  }

  it('stores the same line sent with a trailing CR identically on every protocol, inner CRs kept', async () => {
    await sendEverywhere();
    let events: EventJson[] = [];
    // syslog is acknowledged by no one: wait until its events are searchable
    for (let i = 0; i < 100 && events.length < PROTOCOLS.length * LINES.length; i++) {
      events = await exported();
      if (events.length < PROTOCOLS.length * LINES.length) await new Promise((r) => setTimeout(r, 50));
    }
    const bySource = new Map<string, string[]>();
    for (const ev of events) bySource.set(ev.source, [...(bySource.get(ev.source) ?? []), ev.message]);
    assert.deepEqual([...bySource.keys()].sort(), [...PROTOCOLS].sort());
    for (const [source, messages] of bySource)
      assert.deepEqual(
        messages.sort(),
        [...LINES].sort(),
        `${source} stores the lines as sent, without their line end`,
      );
  });

  it('finds the line on every protocol by message equality', async () => {
    const qs = new URLSearchParams({
      q: `message="${PLAIN}"`,
      env: ENV,
      index: INDEX,
      from: '2000-01-01T00:00:00Z',
      to: new Date(Date.now() + 86_400_000).toISOString(),
      limit: '100',
    });
    const res = await fetch(`${srv.url}/api/search?${qs}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { events: EventJson[] };
    assert.equal(res.status, 200);
    assert.deepEqual(body.events.map((e) => e.source).sort(), [...PROTOCOLS].sort());
  });
});
