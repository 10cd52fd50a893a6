import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { resolve } from 'node:path';

// A real svc process for the HTTP benchmarks: started on a data dir and a free port, driven with
// keep-alive requests, measured from /proc.

export const BENCH_PASSWORD = 'bench-admin-password';

export interface BenchServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Builds the server's JavaScript (`tsc -b tsconfig.build.json`, as `npm run build` does) so a
 * benchmark can run what an operator runs (`npm start`): under tsx, the loader's thread and its
 * compiled sources cost ≈ 75 MB of RSS more (190 against 265 MB idle), in each decode worker too.
 */
export function buildServer(): void {
  const r = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('tsc -b tsconfig.build.json failed');
}

/**
 * svc on `dataDir`: `node dist/src/main.js` when `built` (after buildServer), else
 * `node --import tsx src/main.ts`; `cpuProfDir` writes a V8 CPU profile there at exit.
 */
export async function startServer(
  dataDir: string,
  opts: { cpuProfDir?: string; env?: Record<string, string>; built?: boolean } = {},
): Promise<BenchServer> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  const prof = opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(opts.cpuProfDir)] : [];
  const main = opts.built ? ['dist/src/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, [...prof, ...main], {
    env: {
      ...clean,
      SVC_LISTEN: '127.0.0.1:0',
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_PASSWORD: BENCH_PASSWORD,
      SVC_LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((ok, fail) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"url":"(http:[^"]+)"[^\n]*svc listening|svc listening[^\n]*"url":"(http:[^"]+)"/.exec(buf);
      if (m) ok(m[1] ?? m[2]);
    });
    child.on('exit', (c) => fail(new Error(`svc exited with ${c}: ${buf}`)));
  });
  child.stdout.resume();
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function json(
  url: string,
  method: string,
  body: unknown,
  token?: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** An admin session and an ingest token for env `default`. */
export async function benchCredentials(url: string): Promise<{ admin: string; ingest: string }> {
  const { token: admin } = (await json(`${url}/api/auth/login`, 'POST', {
    username: 'admin',
    password: BENCH_PASSWORD,
  })) as { token: string };
  const { secret } = (await json(
    `${url}/api/admin/ingest-tokens`,
    'POST',
    { name: 'bench', env: 'default' },
    admin,
  )) as { secret: string };
  return { admin, ingest: secret };
}

/** The process's peak resident set (VmHWM), MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * CPU seconds the process has used so far, all its threads, user + system (/proc/<pid>/stat fields
 * 14 and 15, in clock ticks of 1/100 s: Linux's USER_HZ on every architecture Node runs on).
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** POSTs one body on a keep-alive agent; resolves with the events acknowledged (rejects unless 200). */
export function post(
  agent: http.Agent,
  url: URL,
  path: string,
  token: string,
  body: Buffer,
  headers: Record<string, string | number>,
): Promise<number> {
  return new Promise((ok, fail) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-length': body.length, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          if (res.statusCode !== 200) return fail(new Error(`${path}: ${res.statusCode} ${text}`));
          ok((JSON.parse(text) as { ingested: number }).ingested);
        });
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

/** What one ingest run over HTTP did: events acknowledged, seconds, and each request's ack latency (ms). */
export interface IngestRun {
  events: number;
  secs: number;
  lat: number[];
}

/**
 * A closed loop: `requests` calls of `send` over `conc` keep-alive connections, each connection
 * making its next call once the last is answered. `send` answers the events it got acknowledged.
 */
export async function closedLoop(
  requests: number,
  conc: number,
  send: (agent: http.Agent, i: number) => Promise<number>,
): Promise<IngestRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: conc });
  const lat: number[] = [];
  let next = 0;
  let events = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: conc }, async () => {
        while (next < requests) {
          const i = next++;
          const s = performance.now();
          const n = await send(agent, i);
          events += n; // not `events += await …`: that reads `events` before the await and loses the others' counts
          lat.push(performance.now() - s);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return { events, secs: (performance.now() - t0) / 1000, lat };
}

/** POSTs `requests` bodies (cycling over `bodies`) to `path` in a closed loop of `conc` connections. */
export function ingestRun(
  url: URL,
  path: string,
  token: string,
  bodies: Buffer[],
  requests: number,
  conc: number,
  headers: Record<string, string | number>,
): Promise<IngestRun> {
  return closedLoop(requests, conc, (agent, i) => post(agent, url, path, token, bodies[i % bodies.length], headers));
}
