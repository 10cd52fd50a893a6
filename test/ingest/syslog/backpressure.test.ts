import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { LogEvent } from '../../../src/events/event.js';
import type { Writer } from '../../../src/events/writer.js';
import { MAX_PENDING, startSyslog } from '../../../src/ingest/syslog/listener.js';
import { RelpFramer, relpFrame } from '../../../src/ingest/syslog/relp.js';
import { testContext } from '../helpers/harness.js';

/** A writer that holds every write until released, like a full queue with wait: true. */
class GateWriter implements Writer {
  readonly events: LogEvent[] = [];
  private gate: Promise<void>;
  private open!: () => void;
  constructor() {
    this.gate = new Promise((r) => (this.open = r));
  }
  async write(events: LogEvent[]): Promise<void> {
    await this.gate;
    this.events.push(...events);
  }
  queueDepth() {
    return { queued: 0, capacity: 1 };
  }
  release(): void {
    this.open();
  }
}

/**
 * Writes frame(0) … frame(total - 1) as fast as the socket takes them; resolves once a write has
 * waited 300 ms for 'drain' (svc stopped reading and the kernel buffers are full) or all are
 * written. Writing goes on at each 'drain'; the answer counts the frames written so far.
 */
async function writeUntilHeldBack(
  sock: Socket,
  total: number,
  frame: (i: number) => string | Buffer,
): Promise<() => number> {
  let i = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (i < total) {
        if (!sock.write(frame(i++))) {
          sock.once('drain', pump);
          setTimeout(resolve, 300);
          return;
        }
      }
      resolve();
    };
    pump();
  });
  return () => i;
}

describe('syslog TCP backpressure', () => {
  it('stops reading a sender while the writer waits, then stores every line once', async () => {
    const writer = new GateWriter();
    const sys = await startSyslog(testContext(writer), { tcp: { host: '127.0.0.1', port: 0 }, token: 'svi_default' });
    const total = MAX_PENDING * 5;
    const sock = connect(sys.tcpPort!, '127.0.0.1');
    try {
      await pushAll();
    } finally {
      writer.release();
      sock.destroy();
      await sys.close();
    }

    async function pushAll(): Promise<void> {
      await new Promise((r) => sock.once('connect', r));
      const line = (i: number) => `<13>Nov 22 04:36:34 host app: line ${i} ${'x'.repeat(1000)}\n`;
      // write until the kernel buffers fill because svc stopped reading
      const written = await writeUntilHeldBack(sock, total, line);
      assert.ok(written() < total, `the sender was held back (wrote ${written()} of ${total})`);
      assert.equal(writer.events.length, 0);
      writer.release();
      await new Promise<void>((resolve) => {
        const finish = () => (written() < total ? setTimeout(finish, 20) : sock.end(resolve));
        finish();
      });
      const end = Date.now() + 10_000;
      while (writer.events.length < total && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      assert.equal(writer.events.length, total);
      assert.equal(new Set(writer.events.map((e) => e.message.split(' ')[1])).size, total);
    }
  });

  it('stops reading a RELP sender while the writer waits, answers nothing before the write, then every frame 200 OK in order', async () => {
    const writer = new GateWriter();
    const sys = await startSyslog(testContext(writer), { relp: { host: '127.0.0.1', port: 0 }, token: 'svi_default' });
    const total = MAX_PENDING * 5;
    const sock = connect(sys.relpPort!, '127.0.0.1');
    const framer = new RelpFramer(1 << 20);
    const answers: string[] = [];
    sock.on('data', (d: Buffer) => answers.push(...framer.push(d).map((f) => `${f.txnr} ${f.data}`)));
    try {
      await new Promise((r) => sock.once('connect', r));
      sock.write(relpFrame(1, 'open', 'commands=syslog'));
      const frame = (i: number) =>
        relpFrame(i + 2, 'syslog', `<13>Nov 22 04:36:34 host app: line ${i} ${'x'.repeat(1000)}`);
      const written = await writeUntilHeldBack(sock, total, frame);
      assert.ok(written() < total, `the sender was held back (wrote ${written()} of ${total})`);
      assert.equal(writer.events.length, 0);
      // only the open is answered: no syslog frame before its batch is written
      assert.equal(answers.length, 1);
      writer.release();
      while (written() < total) await new Promise((r) => setTimeout(r, 20));
      const end = Date.now() + 20_000;
      while (answers.length < total + 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      assert.equal(writer.events.length, total);
      assert.deepEqual(
        answers.slice(1),
        Array.from({ length: total }, (_, k) => `${k + 2} 200 OK`),
      );
    } finally {
      writer.release();
      sock.destroy();
      await sys.close();
    }
  });
});
