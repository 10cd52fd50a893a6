import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { adminToken, call, createIngestToken, createUser, login } from '../helpers/auth.js';
import { loopbackNameInHosts } from '../helpers/loopback-name.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Monitor webhooks under the outbound rules (docs/outbound.md), over HTTP against a real svc and a
 * real receiver on loopback: a standard user cannot aim a webhook at loopback, [::1], the cloud
 * metadata address or a name of loopback, neither when saving it nor when it is sent; what the
 * operator allows in SVC_OUTBOUND_ALLOW works; redirects are not followed; non-admins learn only
 * that a delivery failed; manual runs are rate limited per user.
 */

interface Delivery {
  ok: boolean;
  attempts?: number;
  status?: number;
  error?: string;
  destination: string;
}
interface Outcome {
  outcome: string;
  notifications?: { state: string; deliveries: Delivery[] }[];
}

describe('monitor webhooks and the outbound rules', () => {
  const hook = new WebhookReceiver();
  const hostsName = loopbackNameInHosts();
  let srv: TestServer;
  let admin: string;
  let alice: string;
  /** Webhooks svc must not reach unless the operator allows them. */
  let inside: string[];
  const base = {
    SVC_MONITOR_WEBHOOK_ATTEMPTS: '1',
    SVC_MONITOR_WEBHOOK_TIMEOUT_SECS: '2',
    SVC_MONITOR_RUNS_PER_MINUTE: '5',
  };
  const allowInside = `127.0.0.1 ::1 169.254.169.254 localhost ${hostsName ?? ''}`;

  before(async () => {
    await hook.start();
    const port = new URL(hook.url).port;
    inside = [
      `${hook.url}/loopback`,
      `http://[::1]:${port}/v6`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${port}/name`,
    ];
    if (hostsName) inside.push(`http://${hostsName}:${port}/hosts-name`);
    else console.log('# no name besides localhost maps to 127.x in /etc/hosts: skipped that case');
    srv = await startTestServer({ ...base, SVC_OUTBOUND_ALLOW: allowInside }, { keepData: true });
    admin = await adminToken(srv);
    const token = await createIngestToken(srv, { env: 'default' });
    const res = await fetch(`${srv.url}/api/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ time: new Date(Date.now() - 30_000).toISOString(), message: 'boom' }) + '\n',
    });
    assert.equal(res.status, 200);
    await createUser(srv, { username: 'alice', password: 'alice-password-1' });
    await createUser(srv, { username: 'bob', password: 'bob-password-12' });
    alice = await login(srv, 'alice', 'alice-password-1');
  });
  after(async () => {
    await srv?.close();
    await hook.close();
    if (srv) rmSync(srv.dataDir, { recursive: true, force: true });
  });

  const monitor = (name: string, webhooks: string[]) => ({
    name,
    query: 'boom',
    env: 'default',
    every: '5m',
    window: '10m',
    condition: { threshold: 'count > 0' },
    destinations: webhooks.map((webhook) => ({ webhook })),
  });
  const create = async (token: string, name: string, webhooks: string[]) =>
    (
      (await call(srv, 'POST', '/api/monitors', { token, body: monitor(name, webhooks), expect: 201 })) as {
        id: string;
      }
    ).id;
  const run = (token: string, id: string) =>
    call(srv, 'POST', `/api/monitors/${id}/run`, { token, expect: 200 }) as Promise<Outcome>;
  const deliveries = (o: Outcome) => o.notifications!.flatMap((n) => n.deliveries);

  it('sends to a destination the operator allows', async () => {
    const id = await create(alice, 'allowed', [`${hook.url}/allowed`]);
    const r = await run(alice, id);
    assert.deepEqual(
      deliveries(r).map((d) => d.ok),
      [true],
    );
    assert.equal(hook.take('/allowed').length, 1);
  });

  it('follows no redirect', async () => {
    const id = await create(alice, 'moved', [`${hook.url}/moved`]);
    const mine = deliveries(await run(alice, id));
    assert.deepEqual(
      mine.map((d) => d.ok),
      [false],
    );
    const theirs = deliveries(await run(admin, id));
    assert.equal(theirs[0].status, 302);
    assert.match(theirs[0].error!, /redirects are not followed/);
    assert.equal(hook.take('/moved:redirected').length, 2);
    assert.equal(hook.take('/alerts').length, 0, 'the redirect target got nothing');
  });

  it('tells a standard user only that a delivery failed, and an admin why', async () => {
    const id = await create(alice, 'dead', [`${hook.url}/dead`]);
    const mine = await run(alice, id);
    assert.deepEqual(deliveries(mine), [{ ok: false, destination: `${hook.url}/…`, error: 'webhook delivery failed' }]);
    assert.doesNotMatch(JSON.stringify(mine), /503|try later|attempts/);
    const theirs = deliveries(await run(admin, id));
    assert.deepEqual([theirs[0].status, theirs[0].attempts], [503, 1]);
    assert.match(theirs[0].error!, /answered 503/);
    hook.take('/dead:refused');
    // the monitor's history says the same to each
    let mineHistory: { event: string; error?: string }[] = [];
    for (let i = 0; i < 30 && mineHistory.filter((h) => h.event === 'monitor_destination_failed').length < 2; i++) {
      await srv.deps.selflog.flush();
      mineHistory = (
        (await call(srv, 'GET', `/api/monitors/${id}/runs`, { token: alice })) as { runs: typeof mineHistory }
      ).runs;
      if (mineHistory.length < 4) await new Promise((r) => setTimeout(r, 100));
    }
    const failed = mineHistory.filter((h) => h.event === 'monitor_destination_failed');
    assert.deepEqual(
      failed.map((h) => h.error),
      ['webhook delivery failed', 'webhook delivery failed'],
    );
    const adminHistory = (
      (await call(srv, 'GET', `/api/monitors/${id}/runs`, { token: admin })) as { runs: typeof mineHistory }
    ).runs;
    assert.ok(adminHistory.some((h) => h.event === 'monitor_destination_failed' && /503/.test(h.error ?? '')));
  });

  it('answers 429 to a user who runs monitors by hand too often, and not to another user', async () => {
    const bob = await login(srv, 'bob', 'bob-password-12');
    const id = await create(bob, 'hammer', []);
    for (let i = 0; i < 5; i++) await run(bob, id);
    const res = await fetch(`${srv.url}/api/monitors/${id}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}` },
    });
    assert.equal(res.status, 429);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'rate_limited');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    const other = await create(alice, 'other', []);
    await run(alice, other);
  });

  it('refuses, once the operator no longer allows them, loopback, [::1], metadata and loopback names: when saved and when sent', async () => {
    const everywhere = await create(alice, 'everywhere', inside);
    // the operator takes the allowance back
    const dataDir = srv.dataDir;
    await srv.close();
    srv = await startTestServer(base, { dataDir, keepData: true });
    admin = await adminToken(srv);
    alice = await login(srv, 'alice', 'alice-password-1');

    for (const url of inside) {
      const res = (await call(srv, 'POST', '/api/monitors', {
        token: alice,
        body: monitor(`new ${url}`, [url]),
        expect: 400,
      })) as { error: { code: string; message: string } };
      assert.equal(res.error.code, 'invalid_input', url);
      assert.match(res.error.message, /^destinations\.0\.webhook: svc does not send to this address/, url);
      const patched = (await call(srv, 'PATCH', `/api/monitors/${everywhere}`, {
        token: alice,
        body: { destinations: [{ webhook: url }] },
        expect: 400,
      })) as { error: { message: string } };
      assert.match(patched.error.message, /^destinations\.0\.webhook: svc does not send to this address/, url);
    }
    // an admin is refused too, and told why
    const adminRefused = (await call(srv, 'POST', '/api/monitors', {
      token: admin,
      body: monitor('admin loopback', [inside[0]]),
      expect: 400,
    })) as { error: { message: string } };
    assert.match(adminRefused.error.message, /127\.0\.0\.1 is not a public address \(loopback\)/);

    // the monitor saved while they were allowed: sent nowhere
    const mine = await run(alice, everywhere);
    assert.deepEqual(
      deliveries(mine).map((d) => [d.ok, d.error]),
      inside.map(() => [false, 'webhook delivery failed']),
    );
    const theirs = deliveries(await run(admin, everywhere));
    for (const d of theirs)
      assert.match(d.error!, /^refused: .* is not a public address \((loopback|linkLocal)\)/, d.destination);
    assert.deepEqual([...hook.got.keys()], [], 'no request reached the receiver');
    // switching such a monitor off still works
    await call(srv, 'POST', `/api/monitors/${everywhere}/disable`, { token: alice, expect: 200 });
  });
});
