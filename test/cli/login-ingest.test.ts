import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { TEST_ADMIN_PASSWORD, call, createApiKey, createEnv, createIngestToken } from '../helpers/auth.js';
import { ROOT, runCli, runCliOnPty, tempConfigHome } from '../helpers/cli.js';
import type { SearchResult } from '../../src/query/types.js';

/**
 * `svc login` and `svc ingest` as a person and a script run them: a subprocess against a real
 * server, the token file checked on disk, a real log file sent with its progress bar drawn on a
 * pseudo-terminal, then counted back through search.
 */
const DATA = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real');
const OPENSSH = join(DATA, 'loghub/OpenSSH/OpenSSH_2k.log');
const present = existsSync(OPENSSH);
if (!present) console.log(`# skipping the real-file ingest test: no ${OPENSSH} (set SVC_REAL_DATA)`);

describe('svc login', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('stores the session token in a 0600 file and uses it, never printing it', async () => {
    const home = tempConfigHome();
    const r = await runCli(['login', '--url', srv.url, '--user', 'admin', '--password-stdin'], {
      input: `${TEST_ADMIN_PASSWORD}\n`,
      env: { XDG_CONFIG_HOME: home },
    });
    assert.equal(r.code, 0, r.stderr);
    const file = join(home, 'svc', 'credentials.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'svc')).mode & 0o777, 0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { url: string; token: string };
    assert.equal(stored.url, srv.url);
    assert.ok(!r.stdout.includes(stored.token) && !r.stderr.includes(stored.token), 'the token is not printed');
    assert.ok(!r.stderr.includes(TEST_ADMIN_PASSWORD));
    const me = await runCli(['whoami'], { env: { XDG_CONFIG_HOME: home } });
    assert.equal(me.code, 0, me.stderr);
    assert.match(me.stdout, /^admin \(user, admin\) at /);
  });

  it('prompts for the password on a terminal without echoing it', async () => {
    const home = tempConfigHome();
    const r = await runCliOnPty(['login', '--url', srv.url, '--user', 'admin'], {
      env: { XDG_CONFIG_HOME: home },
      type: { after: 'password for admin', text: `${TEST_ADMIN_PASSWORD}\r` },
    });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /logged in to .* as admin/);
    assert.ok(!r.output.includes(TEST_ADMIN_PASSWORD), 'the password is not echoed');
    assert.equal(statSync(join(home, 'svc', 'credentials.json')).mode & 0o777, 0o600);
  });

  it("exits 1 with the server's message on a wrong password and stores nothing", async () => {
    const home = tempConfigHome();
    const r = await runCli(['login', '--url', srv.url, '--user', 'admin', '--password-stdin'], {
      input: 'wrong-password\n',
      env: { XDG_CONFIG_HOME: home },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^svc: .*invalid/im);
    assert.equal(existsSync(join(home, 'svc', 'credentials.json')), false);
  });

  it('takes SVC_URL and SVC_TOKEN (an API key) over the stored session, and sends a stored token to its own server only', async () => {
    const key = await createApiKey(srv, { scopes: ['standard'], name: 'cli-reader' });
    const viaEnv = await runCli(['whoami'], { env: { SVC_URL: srv.url, SVC_TOKEN: key } });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.match(viaEnv.stdout, /^cli-reader \(api key\)/);
    const home = tempConfigHome();
    await runCli(['login', '--url', srv.url, '--password-stdin'], {
      input: TEST_ADMIN_PASSWORD,
      env: { XDG_CONFIG_HOME: home },
    });
    const elsewhere = await runCli(['whoami'], { env: { XDG_CONFIG_HOME: home, SVC_URL: 'http://127.0.0.1:9' } });
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /not logged in to http:\/\/127\.0\.0\.1:9/);
    void admin;
  });
});

describe('svc ingest', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const count = async (env: string, index: string) => {
    const r = (await call(srv, 'GET', `/api/search?${new URLSearchParams({ q: '* | stats count', env, index })}`, {
      token: admin,
    })) as SearchResult;
    return Number(r.rows?.[0]?.[0] ?? 0);
  };
  const tmp = () => mkdtempSync(join(tmpdir(), 'svc-cli-ingest-'));

  it(
    'sends a real log file with a progress bar on a terminal, and search counts every line',
    { skip: present ? false : `no ${OPENSSH}` },
    async () => {
      const home = tempConfigHome();
      await runCli(['login', '--url', srv.url, '--password-stdin'], {
        input: TEST_ADMIN_PASSWORD,
        env: { XDG_CONFIG_HOME: home },
      });
      const lines = readFileSync(OPENSSH, 'utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0).length;
      const r = await runCliOnPty(['ingest', '--index', 'openssh', '--batch-lines', '250', OPENSSH], {
        env: { XDG_CONFIG_HOME: home },
      });
      assert.equal(r.code, 0, r.output);
      assert.match(
        r.output,
        /\[#+\] 100% {2}[\d.]+ KiB\/[\d.]+ KiB {2}[\d,]+ events\/s {2}ETA 0:00 {2}OpenSSH_2k\.log/,
        'the progress bar, drawn to 100%',
      );
      assert.match(r.output, /\r\x1b\[K/, 'redrawn in place');
      assert.match(r.output, new RegExp(`ingested ${lines.toLocaleString('en-US')} events from .*; 0 malformed lines`));
      const search = await runCli(['search', '* | stats count', '--index', 'openssh', '-o', 'csv'], {
        env: { XDG_CONFIG_HOME: home },
      });
      assert.equal(search.code, 0, search.stderr);
      assert.equal(search.stdout, `count\r\n${lines}\r\n`);
      const tokens = (await call(srv, 'GET', '/api/admin/ingest-tokens', { token: admin })) as {
        ingestTokens: unknown[];
      };
      assert.deepEqual(tokens.ingestTokens, [], 'the temporary ingest token is deleted');
    },
  );

  it('reads gzip and stdin, maps malformed lines to their file lines across batches, and resumes with --from-line', async () => {
    await createEnv(srv, 'cli');
    const token = await createIngestToken(srv, { env: 'cli' });
    const dir = tmp();
    const lines = Array.from({ length: 9 }, (_, i) =>
      i === 4 ? 'not json' : JSON.stringify({ message: `event ${i + 1}`, n: i + 1 }),
    );
    writeFileSync(join(dir, 'events.ndjson.gz'), gzipSync(lines.join('\n') + '\n'));
    const env = { SVC_URL: srv.url, SVC_INGEST_TOKEN: token };
    const gz = await runCli(['ingest', '--index', 'gz', '--batch-lines', '2', join(dir, 'events.ndjson.gz')], { env });
    assert.equal(gz.code, 0, gz.stderr);
    assert.match(gz.stdout, /ingested 8 events from .*; 1 malformed line$/m);
    assert.match(gz.stderr, /malformed: .*events\.ndjson\.gz:5: /);
    assert.equal(await count('cli', 'gz'), 8);

    const resumed = await runCli(['ingest', '--index', 'resume', '--from-line', '6', '-'], {
      env,
      input: lines.join('\n'),
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(await count('cli', 'resume'), 4, 'lines 6 to 9');
  });

  it('waits as Retry-After says on a 429 and sends the batch again', async () => {
    let refused = 0;
    const target = new URL(srv.url);
    // in front of the real server: the first ingest request is refused, the rest pass through
    const proxy: Server = createServer((req, res) => {
      if (req.url?.startsWith('/api/ingest') && refused === 0) {
        refused++;
        req.resume();
        res
          .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
          .end('{"error":{"code":"rate_limited","message":"slow down"}}');
        return;
      }
      req.pipe(
        httpRequest(
          { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        ),
      );
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const token = await createIngestToken(srv, { env: 'default' });
      const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const started = Date.now();
      const r = await runCli(['ingest', '--index', 'retry', '-'], {
        env: { SVC_URL: url, SVC_INGEST_TOKEN: token },
        input: 'one\ntwo\n',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(refused, 1);
      assert.match(r.stderr, /rate_limited; trying again in 1\.0 s/);
      assert.ok(Date.now() - started >= 1000, 'waited for Retry-After');
      assert.equal(await count('default', 'retry'), 2);
    } finally {
      proxy.close();
    }
  });

  it('stops on a refusal it cannot retry and says how to resume', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'a.log'), 'line one\nline two\n');
    const reader = await createApiKey(srv, { scopes: ['standard'] });
    const r = await runCli(['ingest', join(dir, 'a.log')], { env: { SVC_URL: srv.url, SVC_TOKEN: reader } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ingesting takes an ingest token/);
    const bad = await runCli(['ingest', '--env', 'nope', join(dir, 'a.log')], {
      env: { SVC_URL: srv.url, SVC_INGEST_TOKEN: await createIngestToken(srv, { env: 'default' }) },
    });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /stopped at .*a\.log line 1: ingest token is pinned to environment "default", not "nope"/);
    assert.match(bad.stderr, /resume with: svc ingest --from-line 1 --env nope .*a\.log/);
  });
});
