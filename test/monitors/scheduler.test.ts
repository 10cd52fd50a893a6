import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../../src/clock/clock.js';
import { emptyDoc, type ControlDoc, type MonitorRecord } from '../../src/control/records.js';
import { ALLOW_ALL } from '../../src/auth/principal.js';
import { QueryService } from '../../src/query/service.js';
import { MonitorScheduler, dueSlot } from '../../src/monitors/scheduler.js';
import { MonitorStates, stateBlob } from '../../src/monitors/state.js';
import { DirStore } from '../../src/shared-store/dir-store.js';
import { LlmProvider } from '../../src/llm/provider.js';
import { OutboundClient } from '../../src/outbound/client.js';
import { NO_ALLOW } from '../../src/outbound/allow-list.js';
import { Lease } from '../../src/storage/shared/lease.js';
import type { MonitorDeps } from '../../src/monitors/run.js';
import { NULL_SELFLOG, type SelfLog } from '../../src/selflog/types.js';
import { makeEvents, openStorage, type TestStorage } from '../storage/helpers.js';

/**
 * The schedule against a manual clock, over a real storage engine and real state files: each
 * scheduled time runs once, a restart neither repeats a run nor forgets the missed ones, and a run
 * cut short by a stop is recorded as such.
 */

const MIN = 60_000;
/** 2026-01-10 12:00:30 UTC: half a minute past a slot of a 1-minute monitor. */
const T = Date.UTC(2026, 0, 10, 12, 0, 30);

/** svc's own records, kept in order: [event, detail]. */
function recorder(): SelfLog & { got: [string, Record<string, unknown>][] } {
  const got: [string, Record<string, unknown>][] = [];
  return {
    ...NULL_SELFLOG,
    got,
    service: (event: string, detail: Record<string, unknown>) => void got.push([event, detail]),
  } as SelfLog & { got: typeof got };
}

describe('monitor schedule', () => {
  let s: TestStorage;
  let dir: string;
  const clock = new ManualClock(T);
  const doc: ControlDoc = emptyDoc(new Date(T).toISOString());
  const monitor: MonitorRecord = {
    id: 'mon_1',
    name: 'errors',
    query: 'failed',
    env: 'default',
    every: '1m',
    window: '1h',
    condition: { threshold: 'count > 0' },
    cooldown: '1h',
    destinations: [],
    enabled: true,
    owner: { kind: 'user', id: 'u1', name: 'ops' },
    createdAt: new Date(T).toISOString(),
    updatedAt: new Date(T).toISOString(),
  };
  doc.users.push({
    id: 'u1',
    username: 'ops',
    passwordHash: 'x',
    role: 'admin',
    allow: ALLOW_ALL,
    sessionEpoch: 0,
    createdAt: '',
    updatedAt: '',
  });
  doc.monitors.push(monitor);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-monitor-schedule-'));
    s = await openStorage({ clock });
    await s.engine.writer.write(makeEvents(120, { startUs: (T - 30 * MIN) * 1000, stepUs: 10_000_000 }), {
      wait: true,
    });
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A scheduler as a fresh process would build it: state read from the file (or from a shared store, as node `node`). */
  async function boot(
    log: SelfLog,
    shared?: { store: DirStore; node: string },
  ): Promise<{ sched: MonitorScheduler; states: MonitorStates }> {
    const states = new MonitorStates(stateBlob(dir, shared?.store));
    assert.equal(await states.load(), 'ok');
    const search = new QueryService({ store: s.engine, control: s.control, clock });
    const deps: MonitorDeps = {
      search,
      control: { doc },
      states,
      selflog: log,
      clock,
      log: pino({ level: 'silent' }),
      baseUrl: () => 'http://svc',
      delivery: { attempts: 1, backoffMs: 0, timeoutMs: 1000 },
      outbound: new OutboundClient(NO_ALLOW),
      llm: new LlmProvider(undefined, NULL_SELFLOG, () => clock.now(), new OutboundClient(NO_ALLOW)),
      redactFields: [],
    };
    const lease = shared && new Lease(shared.store, 'leases/monitors.json', shared.node, 30_000);
    return { sched: new MonitorScheduler(deps, () => doc.monitors, { tickMs: 3_600_000, lease }), states };
  }

  const runs = (log: { got: [string, Record<string, unknown>][] }) =>
    log.got.filter(([e]) => e === 'monitor_run').map(([, d]) => [d.outcome, d.slot, d.missed_runs ?? d.triggered]);

  it('runs each scheduled time once, starting at the first one after the monitor was made', async () => {
    const log = recorder();
    const { sched } = await boot(log);
    await sched.tick();
    assert.deepEqual(runs(log), [], 'the slot of 12:00 came before the monitor');
    clock.set(T + 30_000); // 12:01:00
    await sched.tick();
    await sched.exclusive(monitor.id, async () => undefined);
    await sched.tick();
    await sched.exclusive(monitor.id, async () => undefined);
    assert.deepEqual(runs(log), [['ok', '2026-01-10T12:01:00.000Z', true]]);
    clock.advance(MIN);
    await sched.tick();
    await sched.stop();
    assert.deepEqual(
      runs(log).map((r) => r[1]),
      ['2026-01-10T12:01:00.000Z', '2026-01-10T12:02:00.000Z'],
    );
    assert.equal(log.got.filter(([e]) => e === 'monitor_fired').length, 1, 'fired once, then held by the cooldown');
  });

  it('after a restart, records the scheduled times it missed and runs only the latest', async () => {
    clock.set(T + 30_000 + 6 * MIN); // 12:07:00; the last run was 12:02
    const log = recorder();
    const { sched, states } = await boot(log);
    assert.equal(states.get(monitor.id).lastSlot, T + 30_000 + MIN, 'the last slot survived the restart');
    await sched.tick();
    await sched.stop();
    assert.deepEqual(runs(log), [
      ['missed', '2026-01-10T12:07:00.000Z', 4],
      ['ok', '2026-01-10T12:07:00.000Z', true],
    ]);
    assert.equal(
      log.got.filter(([e]) => e === 'monitor_fired').length,
      0,
      'still firing from before the restart, inside its cooldown',
    );
  });

  it('records a run a stop cut short and does not run its time again', async () => {
    const slot = T + 30_000 + 6 * MIN;
    {
      const { states } = await boot(recorder());
      // what a kill during the run of 12:07 leaves behind: the slot taken, the run marked as under way
      await states.update(monitor.id, (x) => ({ ...x, lastSlot: slot, running: slot }));
    }
    const log = recorder();
    const { sched, states } = await boot(log);
    await sched.start();
    await sched.tick();
    await sched.stop();
    assert.deepEqual(runs(log), [['interrupted', '2026-01-10T12:07:00.000Z', undefined]]);
    assert.equal(states.get(monitor.id).running, undefined);
  });

  it('works out due times from the monitor alone', () => {
    assert.equal(dueSlot(monitor, undefined, T), undefined);
    assert.equal(dueSlot(monitor, undefined, T + 30_000), T + 30_000);
    assert.equal(dueSlot({ ...monitor, every: '5m' }, undefined, T + 5 * MIN), Date.UTC(2026, 0, 10, 12, 5));
    assert.equal(dueSlot(monitor, T + 30_000, T + 59_000), undefined);
  });

  it('with several nodes on one store, one node runs each time and another goes on when it stops', async () => {
    const store = new DirStore(join(dir, 'store'));
    const [logA, logB] = [recorder(), recorder()];
    const a = await boot(logA, { store, node: 'a' });
    const b = await boot(logB, { store, node: 'b' });
    clock.set(T + 30_000 + 20 * MIN); // 12:21:00
    await a.sched.tick();
    await b.sched.tick();
    await a.sched.exclusive(monitor.id, async () => undefined);
    assert.deepEqual([runs(logA).length, runs(logB).length], [1, 0], 'a holds the lease, b waits');
    await a.sched.stop(); // gives the lease back
    clock.advance(MIN);
    await b.sched.tick();
    await b.sched.stop();
    assert.deepEqual(
      runs(logB),
      [['ok', '2026-01-10T12:22:00.000Z', true]],
      "b goes on from a's state: no missed time, no repeat",
    );
  });
});
