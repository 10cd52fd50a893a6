import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

// A ClickHouse server of the benchmark's own, for bench/vs-clickhouse.ts: Debian's package
// (18.16 on bookworm), started on a temporary dir and free ports with its own config file. The
// system service is never used or started: the run must not depend on, or disturb, whatever the
// machine already serves.

export const CLICKHOUSE_SERVER = '/usr/sbin/clickhouse-server';

export interface ClickHouse {
  /** The HTTP interface, e.g. http://127.0.0.1:41234/ */
  url: string;
  pid: number;
  /** Runs one statement over HTTP (POST, the statement in the body) and answers the response text. */
  query(sql: string): Promise<string>;
  stop(): Promise<void>;
}

/** Installs clickhouse-server and clickhouse-client from the distribution when the server binary is missing. */
export function ensureClickHouseInstalled(): void {
  if (existsSync(CLICKHOUSE_SERVER)) return;
  console.error(
    'clickhouse-server is missing: apt-get install -y --no-install-recommends clickhouse-server clickhouse-client',
  );
  const r = spawnSync(
    'apt-get',
    ['install', '-y', '--no-install-recommends', 'clickhouse-server', 'clickhouse-client'],
    {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    },
  );
  if (r.status !== 0 || !existsSync(CLICKHOUSE_SERVER)) {
    throw new Error(`cannot install ClickHouse (apt-get exited with ${r.status}; it needs root and Debian's packages)`);
  }
}

/** A TCP port nobody listens on now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => ok(port));
    });
  });
}

/**
 * The server's config: only what a single local server needs. Compression is the server-wide
 * `<compression>` rule because column codecs (`CODEC(ZSTD)`) arrived in 19.1; zstd level 1 is
 * ClickHouse's own default level for the method. The time zone is UTC so hours bucket as svc's do.
 */
function configXml(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/server.err.log</errorlog><size>100M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>5368709120</mark_cache_size>
  <compression><case><method>zstd</method></case></compression>
</yandex>
`;
}

/**
 * One user, `default`, no password, from 127.0.0.1 only; the stock profile's memory cap. LowCardinality
 * is still flagged experimental in 18.16 (it became the default in 19.x).
 */
const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>10000000000</max_memory_usage><use_uncompressed_cache>0</use_uncompressed_cache><allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

/** POSTs `body` to the HTTP interface at `path` (URL-encoded query string included); answers the text, rejects unless 200. */
export function chPost(agent: http.Agent | undefined, url: URL, path: string, body: string | Buffer): Promise<string> {
  return new Promise((ok, fail) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path, method: 'POST', headers: { 'content-length': body.length } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          res.statusCode === 200 ? ok(text) : fail(new Error(`clickhouse ${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

async function waitReady(url: URL, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; i < 300; i++) {
    if (gone) throw new Error('clickhouse-server exited while starting (see its log under the temp dir)');
    const up = await chPost(undefined, url, '/', 'SELECT 1').catch(() => undefined);
    if (up?.trim() === '1') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('clickhouse-server did not answer within 30 s');
}

/** Starts clickhouse-server on `dir` (created) and two free ports; resolves once it answers queries. */
export async function startClickHouse(dir: string): Promise<ClickHouse> {
  for (const d of ['log', 'data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(dir, d), { recursive: true });
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  writeFileSync(join(dir, 'config.xml'), configXml(dir, httpPort, tcpPort));
  writeFileSync(join(dir, 'users.xml'), USERS_XML);
  const child = spawn(CLICKHOUSE_SERVER, [`--config-file=${join(dir, 'config.xml')}`], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const url = new URL(`http://127.0.0.1:${httpPort}/`);
  try {
    await waitReady(url, exited);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    url: url.href,
    pid: child.pid!,
    query: (sql) => chPost(undefined, url, '/', sql),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
