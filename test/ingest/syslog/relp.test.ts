import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPEN_OK, RelpFramer, relpFrame, type RelpFrame } from '../../../src/ingest/syslog/relp.js';
import { createApiKey } from '../../helpers/auth.js';
import { exportAll } from '../../helpers/rsyslog.js';
import { type TestServer } from '../../helpers/server.js';
import { startSyslogServer } from '../../helpers/syslog.js';

const frames = (f: RelpFramer, ...chunks: string[]): RelpFrame[] => chunks.flatMap((c) => f.push(Buffer.from(c)));

describe('RELP framer', () => {
  it('reads frames with and without data, several in one chunk', () => {
    const got = frames(new RelpFramer(1000), '1 open 15 commands=syslog\n2 syslog 5 hello\n3 close 0\n');
    assert.deepEqual(got, [
      { txnr: 1, command: 'open', data: 'commands=syslog' },
      { txnr: 2, command: 'syslog', data: 'hello' },
      { txnr: 3, command: 'close', data: '' },
    ]);
  });

  it('reads a frame split at every byte', () => {
    const text = '12 syslog 11 <13>hé llo\n7 close 0\n';
    const f = new RelpFramer(1000);
    const got = [...Buffer.from(text)].flatMap((b) => f.push(Buffer.from([b])));
    assert.deepEqual(got, [
      { txnr: 12, command: 'syslog', data: '<13>hé llo' },
      { txnr: 7, command: 'close', data: '' },
    ]);
  });

  it('takes data holding LF and counts its length in bytes', () => {
    assert.deepEqual(frames(new RelpFramer(1000), '1 syslog 6 a\nb\né', '\n'), [
      { txnr: 1, command: 'syslog', data: 'a\nb\né' },
    ]);
  });

  it('cuts data longer than the bound, skips the rest, and goes on with the next frame', () => {
    const f = new RelpFramer(4);
    const got = frames(f, '1 syslog 10 abcd', 'efgh', 'ij\n2 sys', 'log 2 ok\n');
    assert.deepEqual(got, [
      { txnr: 1, command: 'syslog', data: 'abcd' },
      { txnr: 2, command: 'syslog', data: 'ok' },
    ]);
    assert.equal(f.oversized, 1);
  });

  it('refuses bytes that are not RELP with a message quoting them', () => {
    const bad: [string, RegExp][] = [
      ['<13>Jan  1 00:00:00 host app: hi\n', /unexpected bytes in a RELP frame header: "<13>Jan/],
      ['1 syslog 3 abcX', /missing LF after RELP frame 1's 3 bytes/],
      ['1 close 0 \n', /missing LF after a RELP frame without data/],
      ['1 syslog 3\nabc\n', /missing data in a RELP frame of 3 bytes/],
      ['1234567890 open 0\n', /unexpected bytes/],
      ['1 open1 0\n', /unexpected bytes/],
      [`1 ${'x'.repeat(33)} 0\n`, /unexpected bytes/],
      ['1 syslog 1234567890 x', /unexpected bytes/],
    ];
    for (const [input, msg] of bad) assert.throws(() => new RelpFramer(1000).push(Buffer.from(input)), msg, input);
  });

  it('waits for more bytes on a header that may still become one', () => {
    for (const part of ['', '1', '123 ', '1 sys', '1 syslog ', '1 syslog 12'])
      assert.deepEqual(new RelpFramer(1000).push(Buffer.from(part)), [], part);
  });

  it('writes frames the framer reads back', () => {
    assert.equal(relpFrame(5, 'rsp', '200 OK').toString(), '5 rsp 6 200 OK\n');
    assert.equal(relpFrame(0, 'serverclose').toString(), '0 serverclose 0\n');
    const back = new RelpFramer(1000).push(relpFrame(9, 'rsp', OPEN_OK));
    assert.deepEqual(back, [{ txnr: 9, command: 'rsp', data: OPEN_OK }]);
  });
});

/** A RELP client over a plain socket: sends text, reads the server's frames. */
class Client {
  private readonly framer = new RelpFramer(1 << 20);
  readonly got: RelpFrame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.got.push(...this.framer.push(d));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }
  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  static async open(port: number): Promise<Client> {
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((r) => s.once('connect', () => r()));
    return new Client(s);
  }
  /** Waits until `n` frames came or the server closed. */
  async frames(n: number): Promise<RelpFrame[]> {
    while (this.got.length < n && !this.closed) await new Promise<void>((r) => this.waiters.push(r));
    return this.got;
  }
  async untilClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }
}

describe('RELP listener against a real svc', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relp-'));
  let srv: TestServer;
  let key: string;
  let port: number;
  before(async () => {
    srv = await startSyslogServer(dataDir, { env: 'relp', index: 'syslog' }, { SVC_SYSLOG_RELP: '127.0.0.1:0' });
    key = await createApiKey(srv, { scopes: ['standard'] });
    port = srv.syslog!.relpPort!;
  });
  after(async () => {
    await srv.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers open with its offers, each syslog frame 200 OK once it is stored, and close with an empty rsp', async () => {
    const c = await Client.open(port);
    const now = new Date().toISOString();
    const msgs = Array.from({ length: 50 }, (_, i) => `<134>1 ${now} relphost app - - - relp unit ${i}`);
    c.socket.write(relpFrame(1, 'open', 'relp_version=0\nrelp_software=test\ncommands=syslog'));
    c.socket.write(Buffer.concat(msgs.map((m, i) => relpFrame(i + 2, 'syslog', m))));
    const got = await c.frames(51);
    assert.deepEqual(got[0], { txnr: 1, command: 'rsp', data: OPEN_OK });
    assert.deepEqual(
      got.slice(1).map((f) => `${f.txnr} ${f.command} ${f.data}`),
      msgs.map((_, i) => `${i + 2} rsp 200 OK`),
    );
    // acknowledged means durable and searchable: every one is in the export at once
    const stored = await exportAll(srv.url, key, { q: '"relp unit"', env: 'relp', index: 'syslog' });
    assert.deepEqual(stored.map((e) => e.message).sort(), msgs.map((_, i) => `relp unit ${i}`).sort());
    assert.ok(stored.every((e) => e.host === 'relphost' && e.source === 'app'));
    c.socket.write(relpFrame(52, 'close'));
    await c.untilClosed();
    assert.deepEqual(c.got[51], { txnr: 52, command: 'rsp', data: '' });
  });

  it('closes a connection that speaks plain syslog instead of RELP', async () => {
    const c = await Client.open(port);
    c.socket.write('<13>Nov 26 10:00:00 host app: not relp\n');
    await c.untilClosed();
    assert.deepEqual(c.got, []);
  });

  it('answers 500 and closes when syslog comes before open, or the transaction number skips', async () => {
    const a = await Client.open(port);
    a.socket.write(relpFrame(1, 'syslog', '<13>x'));
    await a.untilClosed();
    assert.deepEqual(a.got, [{ txnr: 1, command: 'rsp', data: '500 protocol error: "syslog" before "open"' }]);
    const b = await Client.open(port);
    b.socket.write(Buffer.concat([relpFrame(1, 'open', 'commands=syslog'), relpFrame(3, 'syslog', '<13>x')]));
    await b.untilClosed();
    assert.deepEqual(
      b.got.map((f) => f.data),
      [OPEN_OK, '500 unexpected transaction number 3, expected 2'],
    );
  });

  it('refuses an open without the syslog command and answers 500 to an unknown command', async () => {
    const a = await Client.open(port);
    a.socket.write(relpFrame(1, 'open', 'relp_version=0\ncommands=other'));
    await a.untilClosed();
    assert.deepEqual(
      a.got.map((f) => f.data),
      ['500 required command not supported by client'],
    );
    const b = await Client.open(port);
    b.socket.write(
      Buffer.concat([
        relpFrame(1, 'open', 'commands=syslog'),
        relpFrame(2, 'starttls'),
        relpFrame(3, 'syslog', '<13>Nov 26 10:00:00 h a: after unknown'),
      ]),
    );
    const got = await b.frames(3);
    assert.deepEqual(
      got.map((f) => `${f.txnr} ${f.data}`),
      [`1 ${OPEN_OK}`, '2 500 unknown command "starttls"', '3 200 OK'],
    );
    b.socket.destroy();
  });
});

describe('RELP listener when svc stops', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-relp-stop-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers what it stored, then sends serverclose and closes the connection', async () => {
    const srv = await startSyslogServer(dataDir, { env: 'relp', index: 'syslog' }, { SVC_SYSLOG_RELP: '127.0.0.1:0' });
    const c = await Client.open(srv.syslog!.relpPort!);
    c.socket.write(
      Buffer.concat([
        relpFrame(1, 'open', 'commands=syslog'),
        relpFrame(2, 'syslog', `<13>1 ${new Date().toISOString()} h app - - - before stop`),
      ]),
    );
    await c.frames(2);
    await srv.close();
    await c.untilClosed();
    assert.deepEqual(
      c.got.map((f) => `${f.txnr} ${f.command} ${f.data}`),
      [`1 rsp ${OPEN_OK}`, '2 rsp 200 OK', '0 serverclose '],
    );
  });
});
