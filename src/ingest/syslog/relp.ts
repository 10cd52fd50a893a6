import { createServer, type Server as TcpServer, type Socket } from 'node:net';
import type { ListenAddress } from '../../config/load.js';
import { SvcError } from '../../errors/svc-error.js';
import type { LogEvent } from '../../events/event.js';
import { cutUtf8Bytes } from '../../events/limits.js';
import type { IngestContext } from '../common/context.js';
import { StreamFramer, trimEnd } from './framing.js';
import { listenTcp } from './listen-tcp.js';

/**
 * RELP (librelp's Reliable Event Logging Protocol, rsyslog's omrelp) server side. Each frame is
 * `TXNR SP COMMAND SP DATALEN [SP DATA] LF`; the server answers every command with an `rsp` frame of
 * the same TXNR. A `syslog` frame is answered `200 OK` only once its event is durable (the writer
 * resolved after its fsync): the sender keeps every unanswered message and resends it after a
 * reconnect, so a kill loses nothing, at the price of at-least-once (a message stored but not yet
 * answered at the kill comes again).
 */

export interface RelpFrame {
  txnr: number;
  command: string;
  data: string;
}

/** Transaction numbers run 1..999,999,999 and then wrap to 1 (0 is for server hints). */
const MAX_TXNR = 999_999_999;
/** Longest header: 9 digits SP 32 letters SP 9 digits, then SP or LF. */
const MAX_HEADER = 9 + 1 + 32 + 1 + 9 + 1;
const HEADER = /^(\d{1,9}) ([A-Za-z]{1,32}) (\d{1,9})([ \n])/;
/** A header not complete yet but that may still become one. */
const HEADER_PREFIX = /^(\d{0,9}|\d{1,9} [A-Za-z]{0,32}|\d{1,9} [A-Za-z]{1,32} \d{0,9})$/;

/**
 * Splits a RELP byte stream into frames. DATA longer than `maxData` is cut to it (at a UTF-8
 * character boundary), the rest skipped without being buffered, and counted in `oversized`.
 * Throws invalid_input on bytes that are not RELP: the caller closes the connection, since the
 * stream cannot be resynchronised. Not shared between connections.
 */
export class RelpFramer extends StreamFramer<RelpFrame> {
  /** An over-long frame whose rest is being skipped, then its trailer checked. */
  private cut: { frame: RelpFrame; left: number } | undefined;
  oversized = 0;

  constructor(private readonly maxData: number) {
    super();
  }

  protected step(data: Buffer, p: number, out: RelpFrame[]): number {
    return this.cut ? this.skipAt(data, p, out) : this.frameAt(data, p, out);
  }

  /** Reads one frame at p into out; returns the position after it, or -1 when more bytes are needed. */
  private frameAt(data: Buffer, p: number, out: RelpFrame[]): number {
    const head = data.toString('latin1', p, Math.min(data.length, p + MAX_HEADER));
    const m = HEADER.exec(head);
    if (!m) {
      if (head.length < MAX_HEADER && HEADER_PREFIX.test(head)) return -1;
      throw new SvcError(
        'invalid_input',
        `unexpected bytes in a RELP frame header: ${JSON.stringify(head.slice(0, 40))}`,
      );
    }
    const txnr = Number(m[1]);
    const len = Number(m[3]);
    const start = p + m[0].length;
    if (len === 0) {
      if (m[4] !== '\n')
        throw new SvcError(
          'invalid_input',
          `missing LF after a RELP frame without data: ${JSON.stringify(head.slice(0, 40))}`,
        );
      out.push({ txnr, command: m[2], data: '' });
      return start;
    }
    if (m[4] !== ' ') throw new SvcError('invalid_input', `missing data in a RELP frame of ${len} bytes`);
    if (len > this.maxData) {
      if (data.length - start < this.maxData) return -1;
      this.oversized++;
      this.cut = {
        frame: { txnr, command: m[2], data: cutUtf8Bytes(data, start, start + this.maxData) },
        left: len - this.maxData,
      };
      return start + this.maxData;
    }
    if (data.length - start < len + 1) return -1;
    if (data[start + len] !== 0x0a)
      throw new SvcError('invalid_input', `missing LF after RELP frame ${txnr}'s ${len} bytes of data`);
    out.push({ txnr, command: m[2], data: data.toString('utf8', start, start + len) });
    return start + len + 1;
  }

  /** Skips the rest of an over-long frame, then checks its trailer and hands the cut frame on; returns the position reached. */
  private skipAt(data: Buffer, p: number, out: RelpFrame[]): number {
    const cut = this.cut!;
    const n = Math.min(cut.left, data.length - p);
    cut.left -= n;
    p += n;
    if (cut.left > 0 || p >= data.length) return p;
    if (data[p] !== 0x0a) throw new SvcError('invalid_input', `missing LF after RELP frame ${cut.frame.txnr}'s data`);
    out.push(cut.frame);
    this.cut = undefined;
    return p + 1;
  }
}

/** One frame as sent: `TXNR SP COMMAND SP DATALEN [SP DATA] LF`. */
export function relpFrame(txnr: number, command: string, data = ''): Buffer {
  const body = Buffer.from(data, 'utf8');
  const head = `${txnr} ${command} ${body.length}`;
  return body.length ? Buffer.concat([Buffer.from(`${head} `), body, Buffer.from('\n')]) : Buffer.from(`${head}\n`);
}

/** Client offers of an `open` command (`name=value` lines, values comma-separated). */
export function parseOffers(data: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of data.split('\n')) {
    if (line === '') continue;
    const eq = line.indexOf('=');
    const name = eq < 0 ? line : line.slice(0, eq);
    out.set(name, eq < 0 ? [] : line.slice(eq + 1).split(','));
  }
  return out;
}

/** The answer to `open`: version 0 (the only one librelp knows) and the one command svc takes. */
export const OPEN_OK = '200 OK\nrelp_version=0\nrelp_software=svc\ncommands=syslog';

export interface RelpDeps {
  /** Messages to events (counted; events over a limit left out). */
  parse(lines: string[]): LogEvent[];
  /** Resolves true once the events are durable, false when they could not be stored; `bytes`: their frames' size, for the metrics. */
  write(events: LogEvent[], bytes: number): Promise<boolean>;
  stats: { oversized: number };
  log: IngestContext['log'];
  maxFrame: number;
  maxPending: number;
  maxConnections: number;
  idleMs: number;
}

/** A command waiting for its answer: syslog frames for their batch, others in their place. */
interface Pending {
  txnr: number;
  events?: LogEvent[];
  /** Bytes of the frame's message, for the ingest metrics. */
  bytes?: number;
  reply?: string;
  /** Ends the connection once sent (close, errors). */
  last?: boolean;
}

/**
 * One connection. Frames are answered in the order they came: syslog frames collected while a batch
 * is written become the next batch (group commit), and their `rsp` frames go out together after it.
 * Reading stops while maxPending events wait (the writer is behind). A batch storage refused is not
 * answered: the connection is dropped so the sender resends it after reconnecting.
 */
export class RelpSession {
  private readonly framer: RelpFramer;
  private queue: Pending[] = [];
  private events = 0;
  private writing: Promise<void> | undefined;
  private open = false;
  private expect = 1;
  private ended = false;

  constructor(
    private readonly socket: Socket,
    private readonly deps: RelpDeps,
  ) {
    this.framer = new RelpFramer(deps.maxFrame);
  }

  onData(chunk: Buffer): void {
    if (this.ended) return;
    let frames: RelpFrame[];
    try {
      frames = this.framer.push(chunk);
    } catch (err) {
      this.deps.log?.warn(
        { err, remote: this.socket.remoteAddress },
        'syslog RELP: not a RELP stream, closing the connection',
      );
      this.ended = true;
      this.socket.destroy();
      return;
    }
    this.deps.stats.oversized += this.framer.oversized;
    this.framer.oversized = 0;
    for (const f of frames) if (!this.ended) this.onFrame(f);
    this.kick();
    if (this.events >= this.deps.maxPending) this.socket.pause();
  }

  private onFrame(f: RelpFrame): void {
    if (f.txnr !== this.expect)
      return this.fail(f.txnr, `500 unexpected transaction number ${f.txnr}, expected ${this.expect}`);
    this.expect = f.txnr >= MAX_TXNR ? 1 : f.txnr + 1;
    if (f.command === 'open') return this.onOpen(f);
    if (!this.open) return this.fail(f.txnr, `500 protocol error: "${f.command}" before "open"`);
    if (f.command === 'syslog') {
      const events = this.deps.parse([trimEnd(f.data)]);
      this.events += events.length;
      this.queue.push({ txnr: f.txnr, events, bytes: Buffer.byteLength(f.data) });
    } else if (f.command === 'close') {
      this.queue.push({ txnr: f.txnr, reply: '', last: true });
      this.ended = true;
    } else this.queue.push({ txnr: f.txnr, reply: `500 unknown command "${f.command.slice(0, 32)}"` });
  }

  private onOpen(f: RelpFrame): void {
    if (this.open) return this.fail(f.txnr, '500 protocol error: connection already open');
    if (!(parseOffers(f.data).get('commands') ?? []).includes('syslog'))
      return this.fail(f.txnr, '500 required command not supported by client');
    this.open = true;
    this.queue.push({ txnr: f.txnr, reply: OPEN_OK });
  }

  /** Answers an error after what is queued and closes: the stream cannot go on. */
  private fail(txnr: number, reply: string): void {
    this.deps.log?.warn({ remote: this.socket.remoteAddress, reply }, 'syslog RELP: closing the connection');
    this.queue.push({ txnr, reply, last: true });
    this.ended = true;
  }

  /** Starts the write loop unless it runs; `writing` is cleared only after it was set. */
  private kick(): void {
    if (this.writing || this.queue.length === 0) return;
    const failed = (err: unknown) => {
      // never expected (write resolves false on failure); a bug must not take svc down: drop the
      // connection unanswered, the sender resends
      this.deps.log?.error({ err }, 'syslog RELP: BUG: session failed');
      this.ended = true;
      this.socket.destroy();
    };
    this.writing = this.loop()
      .catch(failed)
      .finally(() => {
        this.writing = undefined;
        this.kick();
      });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      let items = this.queue;
      this.queue = [];
      // what needs no write (open, errors) ahead of the first syslog frame is answered at once
      const lead = items.findIndex((i) => i.events !== undefined);
      if (lead !== 0) {
        this.answer(lead < 0 ? items : items.slice(0, lead));
        items = lead < 0 ? [] : items.slice(lead);
      }
      const events = items.flatMap((i) => i.events ?? []);
      const bytes = items.reduce((n, i) => n + (i.bytes ?? 0), 0);
      if (events.length && !(await this.deps.write(events, bytes))) {
        this.deps.log?.warn(
          { remote: this.socket.remoteAddress, events: events.length },
          'syslog RELP: batch not stored, dropping the connection unanswered so the sender resends it',
        );
        this.ended = true;
        this.queue = [];
        this.socket.destroy();
        break;
      }
      this.events -= events.length;
      this.answer(items);
      if (!this.ended && this.socket.isPaused() && this.events < this.deps.maxPending) this.socket.resume();
    }
  }

  private answer(items: Pending[]): void {
    if (this.socket.destroyed || items.length === 0) return;
    const out = items.map((i) => relpFrame(i.txnr, 'rsp', i.reply ?? '200 OK'));
    this.socket.write(Buffer.concat(out));
    if (items.some((i) => i.last)) this.socket.end();
  }

  /** The peer ended its side: finish what is queued, then end ours. */
  onEnd(): void {
    this.ended = true;
    void this.drain().then(() => this.socket.end());
  }

  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** svc stops: stop reading, store and answer what came, hint the client (`serverclose`), end. */
  async shutdown(): Promise<void> {
    this.ended = true;
    this.socket.pause();
    await this.drain();
    if (this.socket.destroyed) return;
    // a client that stops reading must not hold svc's stop: its answers are given up after a while
    await new Promise<void>((r) => {
      const timer = setTimeout(r, 5000).unref();
      this.socket.end(relpFrame(0, 'serverclose'), () => (clearTimeout(timer), r()));
    });
    this.socket.destroy();
  }
}

/** Starts the RELP listener (SVC_SYSLOG_RELP). */
export async function startRelp(
  addr: ListenAddress,
  deps: RelpDeps,
): Promise<{ server: TcpServer; port: number; closeAll(): Promise<void> }> {
  const open = new Set<RelpSession>();
  const server = createServer((socket) => {
    const session = new RelpSession(socket, deps);
    open.add(session);
    socket.setTimeout(deps.idleMs, () => void session.shutdown());
    socket.on('data', (chunk: Buffer) => session.onData(chunk));
    socket.on('end', () => session.onEnd());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => void session.drain().finally(() => open.delete(session)));
  });
  server.maxConnections = deps.maxConnections;
  const port = await listenTcp(server, addr);
  const closeAll = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    await Promise.all([...open].map((s) => s.shutdown()));
    await closed;
  };
  return { server, port, closeAll };
}
