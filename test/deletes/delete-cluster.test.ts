import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DirStore } from '../../src/shared-store/dir-store.js';
import { createIngestToken } from '../helpers/auth.js';
import { api, clusterNodes, eventually, stopAll, type Node } from '../cluster/nodes.js';
import {
  APACHE_PRESENT,
  QUERY,
  RANGE,
  apacheLines,
  doomed,
  ended,
  expected,
  job,
  send,
  tally,
  type Line,
} from './helpers.js';

/**
 * Two svc processes on one shared directory (test/cluster/), each with half of the real log in its
 * own blocks: a delete asked on node a runs on both (one at a time, under the delete lease) and is
 * seen whole on node b; a node killed during its part finishes it when it runs again.
 */
describe('delete by query on two nodes sharing a store', { skip: !APACHE_PRESENT && 'SVC_REAL_DATA absent' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-delete-cluster-'));
  let a: Node, b: Node;
  let lines: Line[];
  before(async () => {
    lines = apacheLines();
    const storeDir = join(dir, 'store');
    mkdirSync(storeDir);
    [a, b] = clusterNodes(
      join(dir, 'nodes'),
      {
        env: { SVC_STORE: storeDir },
        store: new DirStore(storeDir),
        outage: async () => async () => {},
        close: async () => {},
      },
      ['a', 'b'],
    );
    for (const n of [a, b]) await n.start();
    const token = await createIngestToken(a.srv!, { env: 'default' });
    await send(
      a,
      token,
      lines.filter((l) => l.n % 2 === 1),
      40,
    );
    await send(
      b,
      token,
      lines.filter((l) => l.n % 2 === 0),
      40,
    );
    // each node sees the other's published blocks: every line once on both
    for (const n of [a, b])
      await eventually(
        `node ${n.id} sees every line`,
        60,
        () => tally(n),
        (t) => t.count === lines.length && t.distinct === lines.length,
      );
  });
  after(async () => {
    await stopAll([a, b], dir);
  });

  it('deletes the matching events of both nodes, and node b sees the job and the counts', async () => {
    const dry = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY, dryRun: true });
    assert.equal(dry.body.matchingEvents, lines.filter(doomed).length);
    const started = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const onB = await ended(b, started.body.job.id as string);
    assert.equal(onB.status, 'done', JSON.stringify(onB));
    assert.deepEqual(onB.nodes.map((n) => [n.node, n.status]).sort(), [
      ['a', 'done'],
      ['b', 'done'],
    ]);
    assert.equal(onB.deletedEvents, lines.filter(doomed).length);
    const own = (odd: number) => lines.filter((l) => doomed(l) && l.n % 2 === odd).length;
    assert.deepEqual(
      onB.nodes.map((n) => n.deletedEvents),
      onB.nodes.map((n) => own(n.node === 'a' ? 1 : 0)),
    );
    const want = expected(lines, true);
    for (const n of [b, a])
      await eventually(
        `node ${n.id} counts the lines left`,
        30,
        () => tally(n),
        (t) => JSON.stringify(t) === JSON.stringify(want),
      );
    const listed = await api(b, 'GET', '/api/admin/delete');
    assert.ok(
      listed.body.jobs.some((j: { id: string }) => j.id === onB.id),
      'node b lists the job',
    );
  });

  it('finishes a job whose node b was killed mid-part once b runs again: the 304s of the range gone too', async () => {
    const is304 = (l: Line) => l.status === '304' && l.ms >= Date.parse(RANGE.from) && l.ms < Date.parse(RANGE.to);
    const started = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: 'status=304' });
    const id = started.body.job.id as string;
    let killed = false;
    for (const deadline = Date.now() + 60_000; !killed && Date.now() < deadline; await sleep(20)) {
      const part = (await job(b, id)).nodes.find((n) => n.node === 'b');
      if (part?.status !== 'running' && part?.status !== 'queued') break;
      if (part.blocksDone >= 2) {
        await b.kill();
        killed = true;
      }
    }
    assert.ok(killed, 'node b was killed during its part');
    assert.notEqual((await job(a, id)).status, 'done', 'not done while b is down');
    await b.start();
    const done = await ended(a, id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.deletedEvents, lines.filter(is304).length);
    const kept = lines.filter((l) => !doomed(l) && !is304(l));
    const want = { count: kept.length, distinct: kept.length, sum: kept.reduce((n, l) => n + l.n, 0), doomed: 0 };
    for (const n of [a, b])
      await eventually(
        `node ${n.id} counts the lines left`,
        30,
        () => tally(n),
        (t) => JSON.stringify(t) === JSON.stringify(want),
      );
  });
});
