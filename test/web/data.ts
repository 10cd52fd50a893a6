import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, type HasUrl } from '../helpers/auth.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REAL_DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
export const APACHE_LOG = join(REAL_DATA, 'elastic-examples-apache', 'apache_access_combined.log');
export const OPENSSH_LOG = join(REAL_DATA, 'loghub', 'OpenSSH', 'OpenSSH_2k.log');

export function realDataAvailable(): boolean {
  return existsSync(APACHE_LOG) && existsSync(OPENSSH_LOG);
}

/** Lines of a real file, as svc splits a text/plain body (empty lines are not events). */
export function linesOf(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** Lines holding `term` as a whole token, case-insensitively: svc's rule for a bare search term. */
export function countTerm(lines: string[], term: string): number {
  const re = new RegExp(`(?<![A-Za-z0-9_])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`, 'i');
  return lines.filter((l) => re.test(l)).length;
}

export interface AppEvent {
  '@timestamp': string;
  host: string;
  level: string;
  status: number;
  duration_ms: number;
  message: string;
}

/**
 * Recent application events (the last six hours, six hosts, four levels), generated with a fixed
 * seed so every count the tests check can be computed here from the same list.
 */
export function appEvents(n: number, nowMs: number): AppEvent[] {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const levels = ['info', 'info', 'info', 'info', 'warn', 'error', 'debug'];
  const out: AppEvent[] = [];
  for (let i = 0; i < n; i++) {
    const level = levels[Math.floor(rnd() * levels.length)];
    const host = `web-${1 + Math.floor(rnd() * 6)}`;
    const status = [200, 200, 200, 404, 500][Math.floor(rnd() * 5)];
    const ms = Math.floor(rnd() * 1500);
    const t = new Date(nowMs - Math.floor(rnd() * 6 * 3600_000) - 60_000).toISOString();
    out.push({
      '@timestamp': t,
      host,
      level,
      status,
      duration_ms: ms,
      message: `${level.toUpperCase()} GET /api/items/${i} status=${status} took ${ms}ms request=${i}`,
    });
  }
  return out;
}

/** Pushes NDJSON through the native ingest API with an ingest token. */
export async function ingestNdjson(srv: HasUrl, token: string, index: string, events: object[]): Promise<void> {
  const body = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const res = await fetch(`${srv.url}/api/ingest?index=${index}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    body,
  });
  const ans = (await res.json()) as { ingested: number; errors: number };
  if (res.status !== 200 || ans.errors !== 0 || ans.ingested !== events.length)
    throw new Error(`ingest into ${index}: ${res.status} ${JSON.stringify(ans)}`);
}

export async function ingestFile(srv: HasUrl, token: string, index: string, path: string): Promise<number> {
  const res = await fetch(`${srv.url}/api/ingest?index=${index}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
    body: readFileSync(path),
  });
  const ans = (await res.json()) as { ingested: number; errors: number };
  if (res.status !== 200 || ans.errors !== 0) throw new Error(`ingest ${path}: ${res.status} ${JSON.stringify(ans)}`);
  return ans.ingested;
}

/** `/api/search` as the admin: the answer the UI must agree with. */
export async function apiSearch(
  srv: HasUrl,
  token: string,
  params: Record<string, string | number>,
): Promise<{ events: { time: string; message: string }[]; meta: { matched: number } }> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return (await call(srv, 'GET', `/api/search?${qs}`, { token })) as {
    events: { time: string; message: string }[];
    meta: { matched: number };
  };
}
