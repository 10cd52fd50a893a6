import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';

/**
 * The kernel's count of datagrams it dropped for one UDP socket (receive buffer full), read from
 * `/proc/net/udp` or `/proc/net/udp6` (Linux; the `drops` column). Node exposes neither the count
 * nor SO_RXQ_OVFL, so the proc table is the one place it can be read without native code.
 * The row is found by the socket's local address and port, and by its inode when this process's
 * `/proc/self/fd` can be read (two sockets may share a port with SO_REUSEPORT; ours is the one
 * whose inode this process holds).
 */

interface UdpRow {
  local: string;
  inode: number;
  drops: number;
}

/** Rows of a `/proc/net/udp*` table: local address (hex, as printed), inode, drops. */
export function parseProcNetUdp(text: string): UdpRow[] {
  const rows: UdpRow[] = [];
  for (const line of text.split('\n').slice(1)) {
    const c = line.trim().split(/\s+/);
    if (c.length < 13) continue;
    rows.push({ local: c[1].toUpperCase(), inode: Number(c[9]), drops: Number(c[12]) });
  }
  return rows;
}

/** The 16 (IPv6) or 4 (IPv4) bytes of an address; undefined when it is not one. */
export function addressBytes(addr: string): number[] | undefined {
  const a = addr.replace(/%.*$/, '');
  if (!a.includes(':')) {
    const parts = a.split('.').map(Number);
    return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : undefined;
  }
  // an embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  let text = a;
  if (v4) {
    const b = addressBytes(v4[1]);
    if (!b) return undefined;
    text = a.slice(0, -v4[1].length) + `${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const [head, tail, ...more] = text.split('::');
  if (more.length > 0) return undefined;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const all = [...h, ...Array<string>(Math.max(fill, 0)).fill('0'), ...t];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
}

/**
 * `addr:port` as the proc table prints it: the address as 32-bit words in the host's byte order
 * (`%08X` each), the port in hex.
 */
export function procLocalAddress(addr: string, port: number, little = endianness() === 'LE'): string | undefined {
  const bytes = addressBytes(addr);
  if (!bytes) return undefined;
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = bytes.slice(i, i + 4);
    if (little) word.reverse();
    hex += word.map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return `${hex.toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Inodes of the sockets this process has open (empty where /proc/self/fd cannot be read). */
function ownSocketInodes(): Set<number> {
  const out = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) out.add(Number(m[1]));
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

export class UdpDropCounter {
  private constructor(
    private readonly table: string,
    private readonly local: string,
    private readonly inode: number | undefined,
  ) {}

  /**
   * The counter of the socket bound at `addr:port` (as socket.address() answers), or undefined
   * where there is no proc table (not Linux) or no row for it. Call once, right after binding.
   */
  static open(
    addr: string,
    port: number,
    table = addr.includes(':') ? '/proc/net/udp6' : '/proc/net/udp',
  ): UdpDropCounter | undefined {
    const local = procLocalAddress(addr, port);
    if (!local) return undefined;
    let rows: UdpRow[];
    try {
      rows = parseProcNetUdp(readFileSync(table, 'utf8')).filter((r) => r.local === local);
    } catch {
      return undefined;
    }
    if (rows.length === 0) return undefined;
    const mine = ownSocketInodes();
    const inode = rows.find((r) => mine.has(r.inode))?.inode;
    return new UdpDropCounter(table, local, inode);
  }

  /** Datagrams the kernel dropped for this socket since it was opened; undefined when the row is gone. */
  async read(): Promise<number | undefined> {
    let rows: UdpRow[];
    try {
      rows = parseProcNetUdp(await readFile(this.table, 'utf8'));
    } catch {
      return undefined;
    }
    const row = rows.find((r) => r.local === this.local && (this.inode === undefined || r.inode === this.inode));
    return row?.drops;
  }
}
