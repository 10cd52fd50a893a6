import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { suiteServer, type TestServer } from '../helpers/server.js';
import { createIngestToken } from '../helpers/auth.js';
import { spawnCli } from '../helpers/cli.js';

/** `svc tail` as a subprocess following a real server while events arrive. */

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('svc tail', () => {
  let srv: TestServer;
  let admin: string;
  suiteServer((s, a) => ([srv, admin] = [s, a]));

  it('prints each new event once, oldest first, until Ctrl+C', async () => {
    const token = await createIngestToken(srv, { env: 'default' });
    const push = async (lines: string[]) => {
      const res = await fetch(`${srv.url}/api/ingest?index=tail`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
        body: lines.join('\n'),
      });
      assert.equal(res.status, 200, await res.text());
    };
    await push(['tailtest before']);
    const tail = spawnCli(['tail', 'tailtest', '--index', 'tail'], { env: { SVC_URL: srv.url, SVC_TOKEN: admin } });
    try {
      await until('the event from before the start', () => tail.stdout().includes('tailtest before'));
      // two identical lines are two events: both are shown; events of one instant have no order, so the instants differ
      const at = (ms: number) => new Date(Date.now() + ms).toISOString();
      const [t1, t2] = [at(0), at(5)];
      await push([`${t1} tailtest after one`, `${t2} tailtest after two`, `${t2} tailtest after two`]);
      await until('the new events', () => tail.stdout().split('tailtest after two').length === 3);
      await sleep(2500); // a few more polls over the same window
      const lines = tail.stdout().trimEnd().split('\n');
      assert.deepEqual(
        lines.map((l) => l.slice(l.indexOf('tailtest'))),
        ['tailtest before', 'tailtest after one', 'tailtest after two', 'tailtest after two'],
      );
      assert.match(lines[0], /^\d{4}-\d{2}-\d{2}T[\d:.]+Z default\/tail tailtest before$/);
    } finally {
      tail.child.kill('SIGINT');
    }
    assert.equal(await tail.exited, 0, tail.stderr());
  });
});
