import type { Logger } from 'pino';
import type { SelfLog } from '../../selflog/types.js';
import type { UdpDropCounter } from './udp-drops.js';

/** How often the kernel's drop counter is read while the listener runs (and once more at close). */
export const DROP_CHECK_MS = 10_000;
/** A drop keeps `GET /api/health` degraded this long after the counter last grew. */
export const DROPS_RECENT_MS = 10 * 60_000;

/** What the listener shows in `GET /api/health` (the shape of storage/health.ts's HealthProblem). */
export interface SyslogHealthProblem {
  kind: 'syslog_dropped';
  message: string;
  since: string;
  count: number;
}

/**
 * Watches the kernel's drop counter of the syslog UDP socket: each time it grew, one
 * `syslog_dropped` record in `_svclogs` and a warning in the process log, and a health problem
 * until DROPS_RECENT_MS after the last growth. Checks run one at a time (a timer and close() may
 * both call check()).
 */
export class UdpDropWatch {
  /** Datagrams the kernel dropped since the listener started. */
  total = 0;
  private episode: { since: number; lastAt: number; count: number; dropped: number } | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly counter: Pick<UdpDropCounter, 'read'>,
    private readonly o: {
      listen: string;
      recvBufferBytes: number;
      selflog?: Pick<SelfLog, 'service'>;
      log?: Logger;
      now?: () => number;
    },
  ) {}

  check(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    const drops = await this.counter.read();
    if (drops === undefined || drops <= this.total) return;
    const dropped = drops - this.total;
    this.total = drops;
    const now = this.now();
    const recent = this.episode && now - this.episode.lastAt <= DROPS_RECENT_MS;
    this.episode =
      recent && this.episode
        ? { ...this.episode, lastAt: now, count: this.episode.count + 1, dropped: this.episode.dropped + dropped }
        : { since: now, lastAt: now, count: 1, dropped };
    const detail = { dropped, total: this.total, listen: this.o.listen, recv_buffer_bytes: this.o.recvBufferBytes };
    this.o.selflog?.service('syslog_dropped', detail);
    this.o.log?.warn(detail, 'syslog UDP: the kernel dropped datagrams, its receive buffer was full');
  }

  /** The health problem while drops are recent; none otherwise. */
  problems(): SyslogHealthProblem[] {
    const e = this.episode;
    if (!e || this.now() - e.lastAt > DROPS_RECENT_MS) return [];
    const message =
      `the kernel dropped ${e.dropped} syslog UDP datagram${e.dropped === 1 ? '' : 's'} on ${this.o.listen} since ${iso(e.since)} ` +
      `(${this.total} since start; last at ${iso(e.lastAt)}): its receive buffer (${this.o.recvBufferBytes} bytes) was full; ` +
      'send over TCP, or raise SVC_SYSLOG_UDP_RECV_BUFFER and net.core.rmem_max';
    return [{ kind: 'syslog_dropped', message, since: iso(e.since), count: e.count }];
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
