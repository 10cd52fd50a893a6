import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { OutboundClient, type Resolver } from '../../src/outbound/client.js';
import { NO_ALLOW, parseAllowList } from '../../src/outbound/allow-list.js';
import { OutboundFailure, OutboundRefused } from '../../src/outbound/errors.js';
import { loopbackNameInHosts } from '../helpers/loopback-name.js';

/**
 * The guarded client against real HTTP servers on loopback: what it refuses before connecting,
 * that an allowed destination works, that it connects to the very address it checked (DNS
 * rebinding), and that it follows no redirect, stops waiting and stops reading.
 */

interface Receiver {
  server: Server;
  port: number;
  /** Paths requested, in order. */
  got: string[];
}

async function receiver(host: string, port = 0): Promise<Receiver> {
  const got: string[] = [];
  const server = createServer((req, res) => {
    got.push(req.url ?? '');
    req.resume();
    if (req.url === '/moved') return void res.writeHead(302, { location: '/target' }).end();
    if (req.url === '/big') return void res.end('x'.repeat(64 * 1024));
    if (req.url === '/silent') return; // never answers
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from ${host}`);
  });
  await new Promise<void>((r) => server.listen(port, host, r));
  return { server, port: (server.address() as { port: number }).port, got };
}

const LIMITS = { idleTimeoutMs: 5000, maxBytes: 1024 * 1024 };

describe('the outbound client', () => {
  let v4: Receiver;
  let v6: Receiver;

  before(async () => {
    v4 = await receiver('127.0.0.1');
    v6 = await receiver('::1');
  });
  after(async () => {
    v4.server.close();
    v6.server.close();
  });

  it('refuses loopback, link-local and names that resolve to loopback, before connecting', async () => {
    const client = new OutboundClient(NO_ALLOW);
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      `http://[::1]:${v6.port}/`,
      `http://[::ffff:127.0.0.1]:${v4.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${v4.port}/`,
      `http://0x7f.1:${v4.port}/`,
    ];
    const hostsName = loopbackNameInHosts();
    if (hostsName) urls.push(`http://${hostsName}:${v4.port}/`);
    else console.log('# no name besides localhost maps to 127.x in /etc/hosts: skipped that case');
    for (const url of urls) {
      await assert.rejects(client.fetch(url, {}, LIMITS), (e: unknown) => e instanceof OutboundRefused, url);
      await assert.rejects(client.check(url), (e: unknown) => e instanceof OutboundRefused, url);
    }
    assert.deepEqual([v4.got, v6.got], [[], []], 'nothing reached the servers');
  });

  it('reaches a destination the allow list names, by address or by name', async () => {
    for (const [allow, url] of [
      ['127.0.0.1', `http://127.0.0.1:${v4.port}/a`],
      // localhost may also resolve to ::1: the list must allow every address a name has
      ['127.0.0.0/8 ::1', `http://localhost:${v4.port}/b`],
      ['localhost', `http://localhost:${v4.port}/c`],
      ['::1', `http://[::1]:${v6.port}/d`],
    ]) {
      const client = new OutboundClient(parseAllowList(allow));
      await client.check(url);
      const res = await client.fetch(url, {}, LIMITS);
      assert.equal(res.status, 200, url);
      assert.match(await res.text(), /^hello from/);
    }
    assert.deepEqual(v4.got.splice(0), ['/a', '/b', '/c']);
    assert.deepEqual(v6.got.splice(0), ['/d']);
  });

  it('connects to the address it checked, whatever DNS answers next (rebinding)', async () => {
    // the same port on 127.0.0.2 (allowed) and 127.0.0.1 (not); the name answers .2 once, then .1
    const allowed = await receiver('127.0.0.2');
    const inner = await receiver('127.0.0.1', allowed.port).catch(() => undefined);
    try {
      const answers: LookupAddress[][] = [[{ address: '127.0.0.2', family: 4 }]];
      let asked = 0;
      const resolver: Resolver = async () => {
        asked++;
        return answers.shift() ?? [{ address: '127.0.0.1', family: 4 }];
      };
      const client = new OutboundClient(parseAllowList('127.0.0.2'), resolver);
      const res = await client.fetch(`http://rebind.test:${allowed.port}/hook`, { method: 'POST', body: '{}' }, LIMITS);
      assert.equal(await res.text(), 'hello from 127.0.0.2');
      assert.equal(asked, 1, 'one lookup, made by the connection itself');
      assert.deepEqual(allowed.got, ['/hook']);
      assert.deepEqual(inner?.got ?? [], []);
      // and the next call, now that the name answers 127.0.0.1, is refused
      await assert.rejects(client.fetch(`http://rebind.test:${allowed.port}/hook`, {}, LIMITS), OutboundRefused);
    } finally {
      allowed.server.close();
      inner?.server.close();
    }
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const resolver: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await assert.rejects(
      new OutboundClient(NO_ALLOW, resolver).fetch('http://mixed.test/', {}, LIMITS),
      (e: unknown) => e instanceof OutboundRefused && e.address === '10.0.0.5',
    );
  });

  it('hands back a redirect as it is, never following it', async () => {
    const client = new OutboundClient(parseAllowList('127.0.0.1'));
    const res = await client.fetch(`http://127.0.0.1:${v4.port}/moved`, {}, LIMITS);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/target');
    assert.deepEqual(v4.got.splice(0), ['/moved']);
  });

  it('stops reading an answer over the cap, and stops waiting for one that does not come', async () => {
    const client = new OutboundClient(parseAllowList('127.0.0.1'));
    const big = await client.fetch(`http://127.0.0.1:${v4.port}/big`, {}, { idleTimeoutMs: 5000, maxBytes: 1000 });
    await assert.rejects(big.text(), (e: unknown) => e instanceof OutboundFailure && e.reason === 'too_large');
    await assert.rejects(
      client.fetch(`http://127.0.0.1:${v4.port}/silent`, {}, { idleTimeoutMs: 200, maxBytes: 1000 }),
      (e: unknown) => e instanceof OutboundFailure && e.reason === 'timeout',
    );
    v4.got.splice(0);
  });

  it('calls a trusted origin (one the operator configured) whatever its address', async () => {
    const client = new OutboundClient(NO_ALLOW);
    const origin = `http://127.0.0.1:${v4.port}`;
    const res = await client.fetch(`${origin}/llm`, {}, { ...LIMITS, trusted: [origin] });
    assert.equal(res.status, 200);
    await res.text();
    await assert.rejects(
      client.fetch(`${origin}/other`, {}, { ...LIMITS, trusted: ['http://127.0.0.1:1'] }),
      OutboundRefused,
    );
    assert.deepEqual(v4.got.splice(0), ['/llm']);
  });
});
