import { randomBytes } from 'node:crypto';
import { createWriteStream, statSync } from 'node:fs';
import { DATASET_END, loadRealLines, realDataDir, varyIds } from './dataset.js';

/**
 * The side-by-side data set of bench/vs-clickhouse.ts: N events `{"_time", "host", "message"}`, the
 * messages real log lines from SVC_REAL_DATA (every line and Zeek JSON record, in file order, cycling;
 * later copies shift 5+ digit runs as bench/lib/dataset.ts does), `_time` rising evenly over `days`
 * ending at DATASET_END, `host` one of `hosts`. A random 12-character token is appended to 10
 * messages spread evenly: the rare term.
 *
 * While writing, the expected answers are counted from the messages with svc's term rule (a term
 * or phrase matches ignoring case when no letter, digit or `_` touches it on either side), so
 * every count either server answers is checked against the file itself.
 */
export interface VsData {
  path: string;
  events: number;
  bytes: number;
  startMs: number;
  endMs: number;
  rareTerm: string;
  truth: Truth;
}

/** What the file holds: matches per term/phrase, events per host and per hour (epoch ms of the hour). */
export interface Truth {
  terms: Record<string, number>;
  hosts: Map<string, number>;
  hours: Map<number, number>;
}

export const RARE_PLANTED = 10;

/** A term or phrase as a whole-token regex, case-insensitive (svc's rule, ASCII word characters). */
export function tokenRegex(term: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`, 'i');
}

/** 12 characters of [a-z0-9], starting with a letter: one token, seen nowhere in real logs. */
function randomToken(): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const b = randomBytes(12);
  return 'abcdefghijklmnopqrstuvwxyz'[b[0] % 26] + [...b.subarray(1)].map((x) => abc[x % abc.length]).join('');
}

function newTruth(terms: string[]): Truth {
  return { terms: Object.fromEntries(terms.map((t) => [t, 0])), hosts: new Map(), hours: new Map() };
}

function count(truth: Truth, checks: [string, RegExp][], host: string, timeMs: number, message: string): void {
  truth.hosts.set(host, (truth.hosts.get(host) ?? 0) + 1);
  const hour = timeMs - (timeMs % 3_600_000);
  truth.hours.set(hour, (truth.hours.get(hour) ?? 0) + 1);
  for (const [t, re] of checks) if (re.test(message)) truth.terms[t]++;
}

/**
 * Writes the data set to `path` (once per run) and counts what it holds. `terms` are the terms and
 * phrases (without quotes) the benchmark searches besides the rare term.
 */
export async function writeVsData(
  path: string,
  opts: { events: number; days: number; hosts: number; terms: string[] },
): Promise<VsData> {
  const lines = loadRealLines().map((l) => l.text);
  if (lines.length === 0) throw new Error(`no real data under ${realDataDir()} (set SVC_REAL_DATA)`);
  const rareTerm = randomToken();
  const truth = newTruth([rareTerm, ...opts.terms]);
  const checks: [string, RegExp][] = Object.keys(truth.terms).map((t) => [t, tokenRegex(t)]);
  const { events: n, hosts } = opts;
  const spanMs = opts.days * 86_400_000;
  const startMs = DATASET_END - spanMs;
  // the rare term sits in the middle of each tenth of the file
  const planted = new Set(Array.from({ length: RARE_PLANTED }, (_, k) => Math.floor(((k + 0.5) * n) / RARE_PLANTED)));
  const out = createWriteStream(path);
  let chunk = '';
  for (let i = 0; i < n; i++) {
    const timeMs = startMs + Math.floor((i / n) * spanMs);
    const host = `host-${String(((i * 7919) >>> 0) % hosts).padStart(3, '0')}`;
    let message = varyIds(lines[i % lines.length], Math.floor(i / lines.length));
    if (planted.has(i)) message += ` ${rareTerm}`;
    count(truth, checks, host, timeMs, message);
    chunk += `{"_time":"${new Date(timeMs).toISOString()}","host":"${host}","message":${JSON.stringify(message)}}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((ok, fail) => out.on('finish', ok).on('error', fail));
  return { path, events: n, bytes: statSync(path).size, startMs, endMs: DATASET_END, rareTerm, truth };
}
