import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/auth.js';
import { runCli } from '../helpers/cli.js';

/** `svc keys|tokens|envs|users|gc|version` against a real server, each change checked through the API. */

interface Key {
  id: string;
  name: string;
  state: string;
  scopes: string[];
}

describe('svc admin commands', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));
  const cli = (args: string[], input?: string) => runCli(args, { env: { SVC_URL: srv.url, SVC_TOKEN: admin }, input });
  const keyByName = async (name: string) =>
    ((await call(srv, 'GET', '/api/admin/api-keys', { token: admin })) as { apiKeys: Key[] }).apiKeys.find(
      (k) => k.name === name,
    );
  const me = (secret: string) => fetch(`${srv.url}/api/auth/me`, { headers: { authorization: `Bearer ${secret}` } });

  it('creates, disables, enables and deletes an API key', async () => {
    const created = await cli([
      'keys',
      'create',
      'cli-ci',
      '--scope',
      'standard',
      '--scope',
      'mcp',
      '--purpose',
      'CI',
      '--expires-in-days',
      '30',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const secret = created.stdout.trim();
    assert.match(secret, /^svk_\S+$/, 'the secret alone on stdout');
    const key = (await keyByName('cli-ci'))!;
    assert.deepEqual(key.scopes.sort(), ['mcp', 'standard']);
    assert.equal((await me(secret)).status, 200);

    const listed = await cli(['keys', 'list']);
    assert.match(listed.stdout, new RegExp(`^${key.id} +cli-ci +mcp,standard|standard,mcp +enabled`, 'm'));
    assert.ok(!listed.stdout.includes(secret));

    assert.equal((await cli(['keys', 'disable', 'cli-ci'])).code, 0);
    assert.equal((await keyByName('cli-ci'))!.state, 'disabled');
    assert.equal((await me(secret)).status, 401);
    assert.equal((await cli(['keys', 'enable', key.id])).code, 0);
    assert.equal((await keyByName('cli-ci'))!.state, 'enabled');
    assert.equal((await me(secret)).status, 200);

    const deleted = await cli(['keys', 'delete', 'cli-ci']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(await keyByName('cli-ci'), undefined);
    await call(srv, 'GET', `/api/admin/api-keys/${key.id}`, { token: admin, expect: 404 });
    assert.equal((await me(secret)).status, 401);

    const gone = await cli(['keys', 'delete', 'cli-ci']);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no API key with the id or name "cli-ci"/);
  });

  it('manages environments, ingest tokens and users', async () => {
    assert.equal((await cli(['envs', 'create', 'cli-env', '--retention-days', '7'])).code, 0);
    assert.equal((await cli(['envs', 'update', 'cli-env', '--retention-days', '30'])).code, 0);
    const envs = JSON.parse((await cli(['envs', 'list', '-o', 'json'])).stdout) as {
      name: string;
      retentionDays?: number;
    }[];
    assert.equal(envs.find((e) => e.name === 'cli-env')?.retentionDays, 30);

    const token = await cli(['tokens', 'create', 'cli-shipper', '--env', 'cli-env', '--index', 'web']);
    assert.match(token.stdout.trim(), /^svi_\S+$/);
    const ingest = await runCli(['ingest', '-'], {
      env: { SVC_URL: srv.url, SVC_INGEST_TOKEN: token.stdout.trim() },
      input: 'hello\n',
    });
    assert.equal(ingest.code, 0, ingest.stderr);
    assert.equal((await cli(['tokens', 'disable', 'cli-shipper'])).code, 0);
    const tokens = (await call(srv, 'GET', '/api/admin/ingest-tokens', { token: admin })) as {
      ingestTokens: { name: string; state: string; env: string; index: string }[];
    };
    assert.deepEqual(
      tokens.ingestTokens.map((t) => [t.name, t.env, t.index, t.state]),
      [['cli-shipper', 'cli-env', 'web', 'disabled']],
    );
    assert.equal((await cli(['tokens', 'delete', 'cli-shipper'])).code, 0);

    const user = await cli(
      ['users', 'create', 'carol', '--allow-env', 'cli-env', '--password-stdin'],
      'carol-long-password\n',
    );
    assert.equal(user.code, 0, user.stderr);
    const login = await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', password: 'carol-long-password' }),
    });
    assert.equal(login.status, 200);
    assert.equal((await cli(['users', 'disable', 'carol'])).code, 0);
    assert.match((await cli(['users', 'list'])).stdout, /carol +user +disabled +envs=cli-env indexes=\* tools=\*/);
    assert.equal((await cli(['users', 'delete', 'carol'])).code, 0);
    assert.equal((await cli(['envs', 'delete', 'cli-env'])).code, 0);
    const refused = await cli(['envs', 'delete', 'default']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^svc: .*default/m);
  });

  it('runs the retention sweep, and says so when the credential may not', async () => {
    const r = await cli(['gc']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /deleted 0 blocks \(0 events\)/);
    const anon = await runCli(['gc'], { env: { SVC_URL: srv.url } });
    assert.equal(anon.code, 1);
    assert.match(anon.stderr, /run svc login, or set SVC_TOKEN/);
  });

  it('lists every command in --help and prints its version', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    for (const c of ['serve', 'login', 'search', 'tail', 'ingest', 'keys', 'tokens', 'envs', 'users', 'gc', 'version'])
      assert.match(help.stdout, new RegExp(`^  ${c}\\b`, 'm'));
    const sub = await runCli(['keys', 'create', '--help']);
    assert.match(sub.stdout, /--scope <scope>/);
    const { VERSION } = await import('../../src/version.js');
    assert.equal((await runCli(['version'])).stdout, `svc ${VERSION}\n`);
    assert.equal((await runCli(['--version'])).stdout, `svc ${VERSION}\n`);
    const unknown = await runCli(['serach', 'x']);
    assert.equal(unknown.code, 2);
  });
});
