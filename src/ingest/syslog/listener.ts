import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server as TcpServer, type Socket } from 'node:net';
import type { ListenAddress } from '../../config/load.js';
import { isSvcError, SvcError } from '../../errors/svc-error.js';
import type { LogEvent } from '../../events/event.js';
import { cutUtf8Bytes, fitEvent } from '../../events/limits.js';
import { authorize, submit, timeCtx, type IngestContext } from '../common/context.js';
import { SyslogFramer, trimEnd } from './framing.js';
import { parseSyslog } from './parse.js';
import { startRelp } from './relp.js';
import { DROP_CHECK_MS, UdpDropWatch, type SyslogHealthProblem } from './udp-drop-watch.js';
import { UdpDropCounter } from './udp-drops.js';
import { listenTcp } from './listen-tcp.js';

/**
 * Syslog over UDP, TCP and RELP (SVC_SYSLOG_UDP / SVC_SYSLOG_TCP / SVC_SYSLOG_RELP, relp.ts). Every event goes to the env/index
 * pinned by SVC_SYSLOG_TOKEN, authenticated at each flush (a revoked token stops ingest at once).
 *
 * TCP: each connection has its own framer and batch; while its batch waits for the writer (which
 * waits for room when the queue is full) the socket stops being read once MAX_PENDING events are
 * buffered, so a full queue pushes back through TCP instead of dropping. A slow, silent or broken
 * sender only holds its own connection (idle timeout, frame size bound, connection cap).
 * UDP cannot push back: when MAX_PENDING events wait, further datagrams are dropped and counted.
 * A burst faster than svc reads fills the socket's receive buffer (SVC_SYSLOG_UDP_RECV_BUFFER, capped
 * by the kernel) and the kernel drops the rest: its drop counter is read every DROP_CHECK_MS and
 * reported (udp-drop-watch.ts).
 */

export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_PENDING = 10_000;
/** Attempts at a batch while storage cannot write (storage_unavailable, about 5 s apart) before it is dropped. */
const STORAGE_RETRIES = 12;
export const MAX_CONNECTIONS = 1024;
export const IDLE_TIMEOUT_MS = 10 * 60_000;

export interface SyslogOptions {
  udp?: ListenAddress;
  tcp?: ListenAddress;
  /** RELP: each message answered once durable (relp.ts). */
  relp?: ListenAddress;
  token: string | undefined;
  /** SO_RCVBUF asked for the UDP socket (bytes; default 8 MiB). */
  udpRecvBuffer?: number;
}

export const DEFAULT_UDP_RECV_BUFFER = 8 * 1024 * 1024;

export interface SyslogListeners {
  /** Bound ports (0 resolved), for tests. */
  udpPort?: number;
  tcpPort?: number;
  relpPort?: number;
  /**
   * Counters since start: messages received; dropped (UDP while the writer is behind, batches
   * storage could not take, messages refused by an event limit); oversized (TCP frames and UDP
   * datagrams longer than MAX_FRAME_BYTES, cut to it and kept). New counts are reported at most
   * once a minute as a `syslog_frames` record in _svclogs.
   */
  stats: { received: number; dropped: number; oversized: number; failedBatches: number };
  /**
   * The UDP socket's receive buffer as the kernel reports it (Linux: twice the bytes granted), and
   * the datagrams the kernel dropped since start (undefined where /proc/net/udp cannot be read).
   */
  udp?: { recvBufferBytes: number; kernelDropped: number | undefined };
  /** Reads the kernel's drop counter now (the timer does it every DROP_CHECK_MS) and reports growth. */
  checkDrops(): Promise<void>;
  /** Problems for `GET /api/health`: recent kernel drops. */
  problems(): SyslogHealthProblem[];
  close(): Promise<void>;
}

/** One batch queue: accumulate, write one batch at a time, tell the owner when it drained. */
class Batcher {
  private pending: LogEvent[] = [];
  /** Bytes received for the pending events (the metrics count them with the batch). */
  private pendingBytes = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly write: (events: LogEvent[], bytes: number) => Promise<unknown>,
    private readonly onDrained: () => void = () => {},
  ) {}

  get size(): number {
    return this.pending.length;
  }

  add(events: LogEvent[], bytes: number): void {
    for (const e of events) this.pending.push(e);
    // frames that gave no event (dropped for a limit) are not stored: their bytes are not counted
    if (events.length > 0) this.pendingBytes += bytes;
    if (!this.writing) this.writing = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      const bytes = this.pendingBytes;
      this.pending = [];
      this.pendingBytes = 0;
      await this.write(batch, bytes);
    }
    this.writing = undefined;
    this.onDrained();
  }

  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }
}

/**
 * Starts the configured listeners. Throws (svc refuses to start) when SVC_SYSLOG_TOKEN is missing
 * or is not a live ingest token: it can never become valid later, tokens are generated secrets.
 */
export async function startSyslog(ctx: IngestContext, opts: SyslogOptions): Promise<SyslogListeners> {
  if (!opts.token)
    throw new SvcError(
      'invalid_input',
      'SVC_SYSLOG_TOKEN is required when SVC_SYSLOG_UDP, SVC_SYSLOG_TCP or SVC_SYSLOG_RELP is set',
    );
  try {
    (await authorize(ctx, opts.token)).resolve(undefined);
  } catch (e) {
    throw new SvcError('invalid_input', `SVC_SYSLOG_TOKEN cannot be used: ${(e as Error).message}`, { cause: e });
  }
  const stats = { received: 0, dropped: 0, oversized: 0, failedBatches: 0 };
  const log = ctx.log;
  /** Resolves true once the batch is durable; false (logged, counted) when it could not be stored. */
  const writeBatch = async (events: LogEvent[], bytes: number): Promise<boolean> => {
    try {
      const target = (await authorize(ctx, opts.token)).resolve(undefined);
      for (const e of events) {
        e.env = target.env;
        e.index = target.index;
      }
      // storage that cannot write now (disk full) may recover: hold the batch (a TCP sender is
      // paused meanwhile) instead of dropping it at once, since syslog has no way to say "retry"
      for (let attempt = 1; ; attempt++) {
        try {
          const gate = throttleGate(ctx, target.env, events);
          await submit(ctx, events, { env: target.env, bytes }, { wait: true, maxWaitMs: Infinity, gate });
          return true;
        } catch (err) {
          if (!isSvcError(err) || err.code !== 'storage_unavailable' || attempt >= STORAGE_RETRIES) throw err;
          await new Promise((r) => setTimeout(r, (err.retryAfterSecs ?? 5) * 1000));
        }
      }
    } catch (err) {
      stats.failedBatches++;
      stats.dropped += events.length;
      ctx.meter?.rejected(events.length);
      log?.error({ err, events: events.length }, 'cannot store syslog events');
      return false;
    }
  };
  const reported = { oversized: 0, dropped: 0 };
  let lastReportMs = 0;
  const parse = (lines: string[]): LogEvent[] => {
    const time = timeCtx(ctx);
    stats.received += lines.length;
    const out: LogEvent[] = [];
    for (const l of lines) {
      if (l.length === 0) continue;
      const ev = parseSyslog(l, time);
      if (fitEvent(ev, ctx.limits) === undefined) out.push(ev);
      else {
        stats.dropped++;
        ctx.meter?.rejected(1);
      }
    }
    // frames cut for their size and messages dropped are reported, at most once a minute
    const now = Date.now();
    if ((stats.oversized > reported.oversized || stats.dropped > reported.dropped) && now - lastReportMs > 60_000) {
      lastReportMs = now;
      const detail = {
        oversized: stats.oversized - reported.oversized,
        dropped: stats.dropped - reported.dropped,
        max_frame_bytes: MAX_FRAME_BYTES,
      };
      ctx.selflog?.service('syslog_frames', detail);
      log?.warn(detail, 'syslog: messages cut to the frame limit or dropped');
      reported.oversized = stats.oversized;
      reported.dropped = stats.dropped;
    }
    return out;
  };

  const closers: (() => Promise<void>)[] = [];
  const out: SyslogListeners = { stats, checkDrops: async () => {}, problems: () => [], close: async () => {} };
  if (opts.udp) {
    const { socket, port, batcher } = await startUdp(opts.udp, parse, writeBatch, stats, log, ctx.meter);
    out.udpPort = port;
    const { watch, recvBufferBytes } = watchUdp(socket, opts.udpRecvBuffer ?? DEFAULT_UDP_RECV_BUFFER, ctx);
    out.udp = { recvBufferBytes, kernelDropped: watch ? 0 : undefined };
    let timer: NodeJS.Timeout | undefined;
    if (watch) {
      out.checkDrops = () => watch.check().then(() => void (out.udp!.kernelDropped = watch.total));
      out.problems = () => watch.problems();
      timer = setInterval(
        () =>
          void out.checkDrops().catch((err: unknown) => log?.warn({ err }, 'syslog UDP: cannot read the drop counter')),
        DROP_CHECK_MS,
      ).unref();
    }
    closers.push(async () => {
      clearInterval(timer);
      // the socket's row leaves the proc table with it: the last count is read first
      await out.checkDrops();
      await new Promise<void>((r) => socket.close(() => r()));
      await batcher.drain();
    });
  }
  if (opts.tcp) {
    const { server, port, drainAll } = await startTcp(opts.tcp, parse, writeBatch, stats);
    out.tcpPort = port;
    closers.push(async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      await drainAll();
      await closed;
    });
  }
  if (opts.relp) {
    const relp = await startRelp(opts.relp, {
      parse,
      write: writeBatch,
      stats,
      log,
      maxFrame: MAX_FRAME_BYTES,
      maxPending: MAX_PENDING,
      maxConnections: MAX_CONNECTIONS,
      idleMs: IDLE_TIMEOUT_MS,
    });
    out.relpPort = relp.port;
    closers.push(() => relp.closeAll());
  }
  out.close = async () => {
    for (const c of closers) await c();
  };
  return out;
}

/**
 * Asks for the receive buffer and reads back what the kernel granted: below the ask (capped at
 * net.core.rmem_max on Linux, which reports twice the bytes granted) it warns once, naming the
 * sysctl. Then opens the kernel's drop counter (none where /proc/net/udp is absent).
 */
function watchUdp(
  socket: UdpSocket,
  asked: number,
  ctx: IngestContext,
): { watch: UdpDropWatch | undefined; recvBufferBytes: number } {
  try {
    socket.setRecvBufferSize(asked);
  } catch (err) {
    ctx.log?.warn({ err, asked }, 'syslog UDP: cannot set the receive buffer size');
  }
  const recvBufferBytes = socket.getRecvBufferSize();
  const linux = process.platform === 'linux';
  const granted = linux ? Math.floor(recvBufferBytes / 2) : recvBufferBytes;
  if (granted < asked) {
    const raise = linux
      ? `sysctl -w net.core.rmem_max=${asked}`
      : "the kernel's socket buffer limit (kern.ipc.maxsockbuf on macOS and BSD)";
    const message = `the kernel granted ${granted} bytes of the ${asked} asked for the syslog UDP receive buffer; bursts beyond it are dropped: raise ${raise}`;
    ctx.log?.warn({ setting: 'SVC_SYSLOG_UDP_RECV_BUFFER', asked, granted }, message);
    ctx.selflog?.service('config_warning', { setting: 'SVC_SYSLOG_UDP_RECV_BUFFER', message });
  }
  const a = socket.address();
  const counter = UdpDropCounter.open(a.address, a.port);
  if (!counter) ctx.log?.info("syslog UDP: no /proc/net/udp here, the kernel's drops cannot be counted");
  const listen = a.address.includes(':') ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  const watch = counter && new UdpDropWatch(counter, { listen, recvBufferBytes, selflog: ctx.selflog, log: ctx.log });
  return { watch, recvBufferBytes };
}

async function startUdp(
  addr: ListenAddress,
  parse: (l: string[]) => LogEvent[],
  write: (e: LogEvent[], bytes: number) => Promise<unknown>,
  stats: SyslogListeners['stats'],
  log: IngestContext['log'],
  meter: IngestContext['meter'],
) {
  const socket: UdpSocket = createSocket(addr.host.includes(':') ? 'udp6' : 'udp4');
  const batcher = new Batcher(write);
  let lastWarnMs = 0;
  socket.on('message', (msg) => {
    if (batcher.size >= MAX_PENDING) {
      stats.dropped++;
      meter?.rejected(1);
      // at most one warning a minute: a flood of drops must not become a flood of log lines
      const now = Date.now();
      if (now - lastWarnMs > 60_000) {
        lastWarnMs = now;
        log?.warn(
          { dropped: stats.dropped, pending: batcher.size },
          'syslog UDP: writer is behind, dropping datagrams',
        );
      }
      return;
    }
    if (msg.length > MAX_FRAME_BYTES) stats.oversized++;
    const text = trimEnd(cutUtf8Bytes(msg, 0, Math.min(msg.length, MAX_FRAME_BYTES)));
    // datagrams arriving while a batch is being written join the next batch (group commit)
    batcher.add(parse([text]), msg.length);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(addr.port, addr.host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return { socket, port: socket.address().port, batcher };
}

async function startTcp(
  addr: ListenAddress,
  parse: (l: string[]) => LogEvent[],
  write: (e: LogEvent[], bytes: number) => Promise<unknown>,
  stats: SyslogListeners['stats'],
) {
  const open = new Set<{ socket: Socket; batcher: Batcher }>();
  const server: TcpServer = createServer((socket) => {
    const framer = new SyslogFramer(MAX_FRAME_BYTES);
    const conn = {
      socket,
      batcher: new Batcher(write, () => socket.isPaused() && !socket.destroyed && socket.resume()),
    };
    open.add(conn);
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    // bytes received since the last complete frame: a frame may span chunks
    let unbatched = 0;
    socket.on('data', (chunk: Buffer) => {
      const lines = framer.push(chunk);
      stats.oversized += framer.oversized;
      framer.oversized = 0;
      unbatched += chunk.length;
      if (lines.length) {
        conn.batcher.add(parse(lines), unbatched);
        unbatched = 0;
      }
      // backpressure: stop reading this connection until its batch is written
      if (conn.batcher.size >= MAX_PENDING) socket.pause();
    });
    socket.on('end', () => {
      const rest = framer.end();
      if (rest.length) conn.batcher.add(parse(rest), unbatched);
      socket.end();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      void conn.batcher.drain().finally(() => open.delete(conn));
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  const port = await listenTcp(server, addr);
  const drainAll = async () => {
    for (const c of open) c.socket.destroy();
    for (const c of open) await c.batcher.drain();
  };
  return { server, port, drainAll };
}

/**
 * The env's ingest limits for a syslog batch: it waits as long as it takes (syslog cannot say
 * "retry later"), so a TCP sender is paused, as for a full queue. Bytes: the messages' UTF-8 size.
 */
function throttleGate(ctx: IngestContext, env: string, events: LogEvent[]): (() => Promise<void>) | undefined {
  const throttle = ctx.throttle;
  if (!throttle) return undefined;
  let bytes = 0;
  for (const e of events) bytes += Buffer.byteLength(e.message);
  let charged = false; // a batch retried after a storage error is not charged again
  return async () => {
    if (charged) return;
    charged = true;
    await throttle({ env, events: events.length, bytes }, { maxWaitMs: Infinity });
  };
}
