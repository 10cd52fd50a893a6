import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createIngestToken } from '../helpers/auth.js';
import { api, type Node } from '../cluster/nodes.js';
import { openStorage, countWhere } from '../storage/helpers.js';
import {
  APACHE_PRESENT,
  QUERY,
  RANGE,
  apacheLines,
  doomed,
  ended,
  expected,
  node,
  send,
  sealed,
  sealedEvents,
  tally,
  type Line,
} from './helpers.js';

/** A process with another segment age on the same data dir (the next start reads it). */
async function restart(n: Node, ageMs: number, dir: string): Promise<Node> {
  await n.stop();
  return node(dir, ageMs).start();
}

describe(
  'delete by query on real data in blocks and live segments',
  { skip: !APACHE_PRESENT && 'SVC_REAL_DATA absent' },
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-delete-'));
    let a: Node;
    let lines: Line[];
    before(async () => {
      lines = apacheLines();
      // the first half sealed into blocks (many: ten indexes, several seals) ...
      a = await node(dir, 300).start();
      const token = await createIngestToken(a.srv!, { env: 'default' });
      const half = Math.floor(lines.length / 2);
      await send(a, token, lines.slice(0, half), 10);
      await sealed(join(dir, 'a'), half);
      // ... the second half live: a segment age no test reaches
      a = await restart(a, 3_600_000, dir);
      await send(a, await createIngestToken(a.srv!, { env: 'default' }), lines.slice(half), 10);
    });
    after(async () => {
      await a?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('has the matching events both in blocks and in live segments before the delete', () => {
      const half = Math.floor(lines.length / 2);
      assert.equal(sealedEvents(join(dir, 'a')), half, 'the second half is live');
      assert.ok(lines.slice(0, half).some(doomed) && lines.slice(half).some(doomed), 'matches in both halves');
    });

    it('answers the dry run with the count of matching lines and deletes nothing', async () => {
      const r = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY, dryRun: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.matchingEvents, lines.filter(doomed).length);
      assert.deepEqual(await tally(a), expected(lines, false));
    });

    it('refuses bad input with the documented status and a JSON error', async () => {
      const body = { env: 'default', ...RANGE, query: QUERY };
      const cases: [string, unknown, number, string, RegExp][] = [
        ['from after to', { ...body, from: RANGE.to, to: RANGE.from }, 400, 'invalid_time', /from .* is not before to/],
        ['an unknown env', { ...body, env: 'nope' }, 400, 'unknown_environment', /env: unknown environment "nope"/],
        ['a pipe in the query', { ...body, query: 'status=404 | head 5' }, 400, 'invalid_query', /^query: .*not pipes/],
        ['no query', { env: 'default', ...RANGE }, 400, 'invalid_input', /query/],
        ['an empty query', { ...body, query: '' }, 400, 'invalid_input', /query/],
      ];
      for (const [what, b, status, code, message] of cases) {
        const r = await api(a, 'POST', '/api/admin/delete', b);
        assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, code, what);
        assert.match(String(r.body.error.message), message, what);
      }
      const key = await createApiKey(a.srv!, { scopes: ['standard'] });
      const res = await fetch(`${a.url}/api/admin/delete`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, dryRun: true }),
      });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'insufficient_scope');
      const unknown = await api(a, 'GET', '/api/admin/delete/del-abc-00000000');
      assert.equal(unknown.status, 404);
    });

    it('runs a job that deletes exactly the matching events and keeps every other one once', async () => {
      const started = await api(a, 'POST', '/api/admin/delete', { env: 'default', ...RANGE, query: QUERY });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const done = await ended(a, started.body.job.id);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.deletedEvents, lines.filter(doomed).length);
      assert.ok(done.progress.blocksDone > 0 && done.progress.blocksDone === done.progress.blocksTotal);
      assert.deepEqual(await tally(a), expected(lines, true));
      const list = await api(a, 'GET', '/api/admin/delete');
      assert.ok(list.body.jobs.some((j: { id: string }) => j.id === done.id));
    });

    it('records who asked, what and how many events went in _svclogs', async () => {
      const qs = new URLSearchParams({
        q: 'event=delete_job status=done | table asked_by target_env query from to deleted_events',
        env: '_system',
        index: '_svclogs',
        from: '-1h',
      });
      const r = await api(a, 'GET', `/api/search?${qs}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const { columns, rows } = r.body as { columns: string[]; rows: unknown[][] };
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const rec = Object.fromEntries(columns.map((c, i) => [c, rows[0][i]]));
      assert.equal(rec.asked_by, 'admin');
      assert.equal(rec.target_env, 'default');
      assert.equal(rec.query, QUERY);
      assert.equal(Number(rec.deleted_events), lines.filter(doomed).length);
    });

    it('keeps them deleted after a restart, a seal of everything and a forced merge', async () => {
      a = await restart(a, 300, dir);
      assert.deepEqual(await tally(a), expected(lines, true));
      await a.stop();
      const s = await openStorage({ dataDir: join(dir, 'a') });
      try {
        await s.engine.flush();
        await s.engine.mergeRound(true);
        assert.equal(await countWhere(s.engine, "env = 'default'"), expected(lines, true).count);
        assert.equal(
          await countWhere(
            s.engine,
            "env = 'default' AND status = '404' AND _time >= TIMESTAMP '2015-05-18' AND _time < TIMESTAMP '2015-05-20'",
          ),
          0,
        );
      } finally {
        await s.close({ keep: true });
      }
      a = await node(dir, 300).start();
      assert.deepEqual(await tally(a), expected(lines, true));
    });
  },
);
