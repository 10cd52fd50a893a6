import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIngestToken } from '../helpers/auth.js';
import { api, type Node } from '../cluster/nodes.js';
import {
  APACHE_PRESENT,
  QUERY,
  RANGE,
  apacheLines,
  doomed,
  ended,
  expected,
  job,
  node,
  send,
  sealed,
  tally,
} from './helpers.js';

describe('a delete job killed with SIGKILL', { skip: !APACHE_PRESENT && 'SVC_REAL_DATA absent' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-delete-kill-'));
  let a: Node | undefined;
  after(async () => {
    await a?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes at the next start and ends with exactly the matching events gone, every other once', async () => {
    const lines = apacheLines();
    a = await node(dir, 300).start();
    // many small blocks (50 indexes × 4 days, several seals), so the job takes long enough to be killed in
    await send(a, await createIngestToken(a.srv!, { env: 'default' }), lines, 50, 2500);
    await sealed(join(dir, 'a'), lines.length);
    const started = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const id = started.body.job.id as string;
    let killedAt: { blocksDone: number; blocksTotal: number } | undefined;
    for (const deadline = Date.now() + 60_000; !killedAt && Date.now() < deadline; await sleep(20)) {
      const j = await job(a, id);
      if (j.status !== 'running' && j.status !== 'queued') break;
      if (j.progress.blocksDone >= 3) {
        await a.kill();
        killedAt = j.progress;
      }
    }
    assert.ok(killedAt && killedAt.blocksDone < killedAt.blocksTotal, `killed mid-job: ${JSON.stringify(killedAt)}`);
    a = await node(dir, 300).start();
    const done = await ended(a, id);
    assert.equal(done.status, 'done', JSON.stringify(done));
    assert.equal(done.deletedEvents, lines.filter(doomed).length, 'every deleted event counted once');
    assert.deepEqual(await tally(a), expected(lines, true));
    // run again: nothing matches any more, nothing else goes
    const again = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY });
    const second = await ended(a, again.body.job.id as string);
    assert.equal(second.status, 'done');
    assert.equal(second.deletedEvents, 0);
    assert.deepEqual(await tally(a), expected(lines, true));
  });

  it('stops a cancelled job after the block it is on: what it deleted is gone, the rest stays', async () => {
    const lines = apacheLines();
    const before = await tally(a!);
    const started = await api(a!, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: 'status=200' });
    const id = started.body.job.id as string;
    const cancelled = await api(a!, 'POST', `/api/admin/delete/${id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const j = await ended(a!, id);
    assert.equal(j.status, 'cancelled', JSON.stringify(j));
    const all200 = lines.filter(
      (l) => l.status === '200' && l.ms >= Date.parse(RANGE.from) && l.ms < Date.parse(RANGE.to),
    );
    assert.ok(j.deletedEvents < all200.length, `stopped before the end: ${j.deletedEvents} of ${all200.length}`);
    const after = await tally(a!);
    assert.equal(after.count, before.count - j.deletedEvents);
    assert.equal(after.distinct, after.count);
  });
});
