import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createEnv, createIngestToken, createUser, login } from '../helpers/auth.js';
import { searchSelfLog } from '../helpers/selflog.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Monitors end to end: real events through POST /api/ingest, the monitor API, a real webhook
 * receiver (an HTTP server in this test), svc's own records in _svclogs, and a restart on the same
 * data dir. The firing groups are checked against counts the test makes from the raw lines.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SSH_LOG = resolve(ROOT, process.env.SVC_REAL_DATA ?? '../shared/data/real', 'loghub/OpenSSH/OpenSSH_2k.log');

interface Outcome {
  outcome: string;
  triggered?: boolean;
  firing?: string[];
  groups?: { group: string; value: number; triggered: boolean }[];
  notifications?: {
    state: string;
    group: string;
    repeat?: boolean;
    deliveries: { ok: boolean; attempts: number; destination: string }[];
  }[];
  error?: { code: string; message: string };
}

/** Events of `lines`, one per second ending 90 s ago, host web-1 for the first half, web-2 after. */
function eventsOf(lines: string[], nowMs: number): { ndjson: string; hosts: string[] } {
  const hosts = lines.map((_, i) => (i < lines.length / 2 ? 'web-1' : 'web-2'));
  const start = nowMs - 90_000 - lines.length * 10;
  const ndjson =
    lines
      .map((message, i) =>
        JSON.stringify({ time: new Date(start + i * 10).toISOString(), host: hosts[i], source: 'sshd', message }),
      )
      .join('\n') + '\n';
  return { ndjson, hosts };
}

describe('monitors over HTTP', () => {
  let srv: TestServer;
  let admin: string;
  const hook = new WebhookReceiver();
  let lines: string[];
  /** Per host: lines with "Failed password", counted from the raw file (the oracle). */
  const failed = new Map<string, number>();
  // the receiver listens on loopback: allowed the way an operator allows an internal destination
  const settings = {
    SVC_MONITOR_WEBHOOK_BACKOFF_MS: '20',
    SVC_MONITOR_WEBHOOK_ATTEMPTS: '3',
    SVC_OUTBOUND_ALLOW: '127.0.0.1',
  };

  before(async () => {
    await hook.start();
    srv = await startTestServer(settings, { keepData: true });
    admin = await adminToken(srv);
    // real lines when the data set is there, else lines of the same shape
    lines = existsSync(SSH_LOG)
      ? readFileSync(SSH_LOG, 'utf8')
          .split('\n')
          .filter((l) => l.length > 0)
      : Array.from({ length: 400 }, (_, i) =>
          i % 3 === 0 || (i > 200 && i % 2 === 0)
            ? `sshd[${i}]: Failed password for root from 10.0.0.${i % 250} port ${40000 + i} ssh2`
            : `sshd[${i}]: Accepted publickey for deploy`,
        );
    if (!existsSync(SSH_LOG))
      console.log(`# real OpenSSH log not found at ${SSH_LOG}: skipped the real lines, using generated ones`);
    const { ndjson, hosts } = eventsOf(lines, Date.now());
    lines.forEach((l, i) => l.includes('Failed password') && failed.set(hosts[i], (failed.get(hosts[i]) ?? 0) + 1));
    const token = await createIngestToken(srv, { env: 'default' });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: ndjson,
    });
    assert.equal(res.status, 200, await res.text());
  });
  after(async () => {
    await srv?.close();
    await hook.close();
    if (srv) rmSync(srv.dataDir, { recursive: true, force: true });
  });

  const create = (body: Record<string, unknown>, token = admin, expect = 201) =>
    call(srv, 'POST', '/api/monitors', { token, body, expect }) as Promise<{ id: string } & Record<string, unknown>>;
  const run = (id: string, token = admin) =>
    call(srv, 'POST', `/api/monitors/${id}/run`, { token, expect: 200 }) as Promise<Outcome>;

  it('fires once per group over the threshold, with the counts of the raw lines, then holds its cooldown', async () => {
    const [low, high] = [...failed.values()].sort((a, b) => a - b);
    assert.ok(high > low, `the two hosts need different counts (${low}, ${high})`);
    const threshold = low; // only the host with more failures passes it
    const m = await create({
      name: 'ssh failures',
      query: '"Failed password" | stats count by host',
      env: 'default',
      every: '5m',
      window: '15m',
      condition: { threshold: `count > ${threshold}` },
      cooldown: '1h',
      destinations: [{ webhook: `${hook.url}/alerts` }, { webhook: `${hook.url}/slack`, format: 'slack' }],
    });
    assert.equal(m.state, 'pending');
    assert.deepEqual(m.destinations, [
      { webhook: `${hook.url}/…`, format: 'json' },
      { webhook: `${hook.url}/…`, format: 'slack' },
    ]);

    const first = await run(m.id);
    assert.equal(first.outcome, 'ok');
    const expected = [...failed].filter(([, n]) => n > threshold).map(([h]) => `host=${h}`);
    assert.deepEqual(first.firing, expected);
    for (const g of first.groups!) assert.equal(g.value, failed.get(g.group.slice('host='.length)));
    const alerts = hook.take('/alerts');
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0].state, 'firing');
    assert.equal(alerts[0].group, expected[0]);
    assert.equal(alerts[0].value, high);
    assert.match(String(alerts[0].link), /\/ui\/search\?q=%22Failed\+password%22/);
    const slack = hook.take('/slack');
    assert.equal(slack.length, 1);
    assert.match(String(slack[0].text), /FIRING.*ssh failures.*host=web-\d/s);

    // still over the threshold, inside the cooldown: no second notification
    const second = await run(m.id);
    assert.deepEqual(second.firing, expected);
    assert.deepEqual(second.notifications, []);
    assert.equal(hook.take('/alerts').length, 0);
    const got = (await call(srv, 'GET', `/api/monitors/${m.id}`, { token: admin })) as {
      state: string;
      firing: { group: string }[];
    };
    assert.equal(got.state, 'firing');
    assert.deepEqual(
      got.firing.map((f) => f.group),
      expected,
    );

    const fired = await searchSelfLog(srv, `event=monitor_fired monitor_id=${m.id}`, '_svclogs');
    assert.equal(fired.events.length, 1);
    const runs = await searchSelfLog(srv, `event=monitor_run monitor_id=${m.id}`, '_svclogs');
    assert.deepEqual(
      runs.events.map((e) => [e.fields.outcome, e.fields.trigger, e.fields.triggered]),
      [
        ['ok', 'manual', true],
        ['ok', 'manual', true],
      ],
    );
  });

  it('previews a monitor without storing or sending anything, and lists what a saved one did', async () => {
    const before = hook.got.size;
    const p = (await call(srv, 'POST', '/api/monitors/preview', {
      token: admin,
      body: {
        name: 'draft',
        query: '"Failed password" | stats count by host',
        env: 'default',
        every: '5m',
        window: '15m',
        condition: { threshold: 'count > 0' },
        destinations: [{ webhook: `${hook.url}/draft` }],
      },
      expect: 200,
    })) as { groups: { group: string; value: number; triggered: boolean }[] };
    assert.deepEqual(
      p.groups.map((g) => [g.group, g.value, g.triggered]).sort(),
      [...failed].map(([h, n]) => [`host=${h}`, n, true]).sort(),
    );
    assert.equal(hook.got.size, before, 'a preview notifies nobody');
    const list = (await call(srv, 'GET', '/api/monitors', { token: admin })) as {
      monitors: { id: string; name: string }[];
    };
    assert.ok(!list.monitors.some((m) => m.name === 'draft'), 'a preview stores nothing');
    const m = list.monitors.find((x) => x.name === 'ssh failures')!;
    // the self-log writes in the background: wait (≤ 3 s) for the three records to be searchable
    let runs: { event: string }[] = [];
    for (let i = 0; i < 30 && runs.length < 3; i++) {
      await srv.deps.selflog.flush();
      runs = ((await call(srv, 'GET', `/api/monitors/${m.id}/runs`, { token: admin })) as { runs: { event: string }[] })
        .runs;
      if (runs.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(runs.map((r) => r.event).sort(), ['monitor_fired', 'monitor_run', 'monitor_run']);
  });

  it('resolves once the events leave the window, and says so to its destinations', async () => {
    const list = (await call(srv, 'GET', '/api/monitors', { token: admin })) as {
      monitors: { id: string; name: string }[];
    };
    const m = list.monitors.find((x) => x.name === 'ssh failures')!;
    // the events are 90 s old: a 1-minute window no longer holds them
    await call(srv, 'PATCH', `/api/monitors/${m.id}`, { token: admin, body: { window: '1m' } });
    const r = await run(m.id);
    assert.deepEqual(r.firing, []);
    assert.deepEqual(
      r.notifications!.map((n) => n.state),
      ['resolved'],
    );
    const alerts = hook.take('/alerts');
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0].state, 'resolved');
    hook.take('/slack');
    const resolved = await searchSelfLog(srv, `event=monitor_resolved monitor_id=${m.id}`, '_svclogs');
    assert.equal(resolved.events.length, 1);
  });

  it('retries a failing destination with backoff and records one that never takes it', async () => {
    const m = await create({
      name: 'any failure',
      query: '"Failed password"',
      env: 'default',
      every: '1m',
      window: '10m',
      condition: { threshold: 'count > 0' },
      destinations: [{ webhook: `${hook.url}/flaky` }, { webhook: `${hook.url}/dead` }],
    });
    const r = await run(m.id);
    assert.equal(
      r.groups![0].value,
      [...failed.values()].reduce((a, b) => a + b, 0),
    );
    const [flaky, dead] = r.notifications![0].deliveries;
    assert.deepEqual([flaky.ok, flaky.attempts], [true, 3]);
    assert.deepEqual([dead.ok, dead.attempts], [false, 3]);
    assert.equal(hook.take('/flaky').length, 1);
    assert.equal(hook.take('/dead:refused').length, 3);
    const failedDest = await searchSelfLog(srv, `event=monitor_destination_failed monitor_id=${m.id}`, '_svclogs');
    assert.equal(failedDest.events.length, 1);
    assert.equal(failedDest.events[0].fields.attempts, 3);
    // the secret part of a webhook never reaches the log
    assert.doesNotMatch(JSON.stringify(failedDest.events[0]), /\/dead/);
  });

  it('records a run that cannot complete as an error, never as "not triggered"', async () => {
    const m = await create({
      name: 'bad column',
      query: '* | stats count by host',
      env: 'default',
      every: '1m',
      condition: { threshold: 'p95 > 1' },
    });
    const r = await run(m.id);
    assert.equal(r.outcome, 'error');
    assert.match(r.error!.message, /lacks/);
    const got = (await call(srv, 'GET', `/api/monitors/${m.id}`, { token: admin })) as { state: string };
    assert.equal(got.state, 'error');
    const runs = await searchSelfLog(srv, `event=monitor_run monitor_id=${m.id} outcome=error`, '_svclogs');
    assert.equal(runs.events.length, 1);
  });

  it('validates what it is given, with the field named', async () => {
    const bad = async (body: Record<string, unknown>, field: RegExp) => {
      const res = (await call(srv, 'POST', '/api/monitors', { token: admin, body, expect: 400 })) as {
        error: { code: string; message: string; field?: string };
      };
      assert.match(res.error.message, field);
      // the form shows the message beside the field the error names
      assert.match(res.error.field ?? '', /^[a-z]/i, `${res.error.message} names its field`);
      assert.ok(res.error.message.startsWith(`${res.error.field}:`) || res.error.field === 'env', res.error.message);
    };
    const ok = { name: 'x', query: 'error', env: 'default', every: '5m', condition: { threshold: 'count > 0' } };
    await bad({ ...ok, every: '10s' }, /every: must be between/);
    await bad({ ...ok, every: 'often' }, /every: want a duration/);
    await bad({ ...ok, condition: { threshold: 'lots' } }, /condition.threshold/);
    await bad({ ...ok, query: 'error | stats' }, /^query: .*aggregation/);
    await bad({ ...ok, destinations: [{ webhook: 'ftp://x' }] }, /destinations.0.webhook/);
    await bad({ ...ok, colour: 'red' }, /colour: unknown field/);
    await bad({ ...ok, condition: { ai: 'anything odd' } }, /condition.ai: AI monitors need an LLM provider/);
    await bad({ ...ok, condition: { threshold: 'count > 0', ai: 'x' } }, /condition: want/);
    await bad({ ...ok, env: 'nowhere' }, /unknown environment "nowhere"/);
    await create({ ...ok, name: 'taken' });
    const dup = (await call(srv, 'POST', '/api/monitors', {
      token: admin,
      body: { ...ok, name: 'taken' },
      expect: 409,
    })) as { error: { field?: string } };
    assert.equal(dup.error.field, 'name');
    // a rename may not take a name another of the owner's monitors holds either; keeping its own is fine
    const other = (await create({ ...ok, name: 'other' })) as { id: string };
    const renamed = (await call(srv, 'PATCH', `/api/monitors/${other.id}`, {
      token: admin,
      body: { name: 'taken' },
      expect: 409,
    })) as { error: { field?: string } };
    assert.equal(renamed.error.field, 'name');
    await call(srv, 'PATCH', `/api/monitors/${other.id}`, { token: admin, body: { name: 'other', every: '10m' } });
  });

  it("belongs to its maker and runs with the maker's access only", async () => {
    await createEnv(srv, 'secret');
    await createUser(srv, { username: 'alice', password: 'alice-password-1', allow: { envs: ['default'] } });
    const alice = await login(srv, 'alice', 'alice-password-1');
    const res = (await call(srv, 'POST', '/api/monitors', {
      token: alice,
      body: { name: 'peek', query: '*', env: 'secret', every: '5m', condition: { threshold: 'count > 0' } },
      expect: 403,
    })) as { error: { code: string; field?: string } };
    assert.equal(res.error.code, 'access_denied');
    assert.equal(res.error.field, 'env');
    const mine = await create(
      { name: 'mine', query: '*', env: 'default', every: '5m', condition: { threshold: 'count > 0' } },
      alice,
    );
    const seen = (await call(srv, 'GET', '/api/monitors', { token: alice })) as { monitors: { id: string }[] };
    assert.deepEqual(
      seen.monitors.map((m) => m.id),
      [mine.id],
    );
    const all = (await call(srv, 'GET', '/api/monitors', { token: admin })) as { monitors: { id: string }[] };
    assert.ok(all.monitors.some((m) => m.id === mine.id) && all.monitors.length > 1);
    const others = all.monitors.find((m) => m.id !== mine.id)!;
    await call(srv, 'GET', `/api/monitors/${others.id}`, { token: alice, expect: 404 });
  });

  it('keeps its state across a restart: a firing group is not announced again', async () => {
    const m = await create({
      name: 'restart',
      query: '"Failed password" | stats count',
      env: 'default',
      every: '5m',
      window: '15m',
      condition: { threshold: 'count > 0' },
      cooldown: '1h',
      destinations: [{ webhook: `${hook.url}/restart` }],
    });
    assert.equal((await run(m.id)).firing!.length, 1);
    assert.equal(hook.take('/restart').length, 1);
    const dataDir = srv.dataDir;
    await srv.close();
    srv = await startTestServer(settings, { dataDir });
    admin = await adminToken(srv);
    const got = (await call(srv, 'GET', `/api/monitors/${m.id}`, { token: admin })) as {
      state: string;
      firing: unknown[];
    };
    assert.equal(got.state, 'firing');
    const again = await run(m.id);
    assert.deepEqual(again.firing, ['*']);
    assert.deepEqual(again.notifications, []);
    assert.equal(hook.take('/restart').length, 0);
  });
});
