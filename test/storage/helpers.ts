import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import type { ControlReader, EnvRecord, Settings } from '../../src/control/types.js';
import { ManualClock, type Clock } from '../../src/clock/clock.js';
import type { LogEvent } from '../../src/events/event.js';
import { StorageEngine, type StorageOptions } from '../../src/storage/engine.js';
import type { ObjectStore } from '../../src/shared-store/object-store.js';

/** An in-memory ControlReader (a stand-in for the control plane's, which tests do not need). */
export class MemoryControl implements ControlReader {
  readonly envMap = new Map<string, EnvRecord>([
    ['default', { name: 'default', createdAt: new Date(0).toISOString() }],
  ]);
  settingsValue: Settings = {};
  env(name: string): EnvRecord | undefined {
    return this.envMap.get(name);
  }
  envs(): EnvRecord[] {
    return [...this.envMap.values()];
  }
  settings(): Settings {
    return this.settingsValue;
  }
  setEnv(name: string, retentionDays?: number): void {
    this.envMap.set(name, { name, retentionDays, createdAt: new Date(0).toISOString() });
  }
}

export interface TestStorage {
  engine: StorageEngine;
  dataDir: string;
  control: MemoryControl;
  clock: Clock;
  close(opts?: { keep?: boolean }): Promise<void>;
}

/** A real storage engine on a fresh temporary data dir (or `dataDir` to reopen one). */
export async function openStorage(
  opts: {
    dataDir?: string;
    env?: Record<string, string>;
    tuning?: StorageOptions['tuning'];
    control?: MemoryControl;
    clock?: Clock;
    store?: ObjectStore;
  } = {},
): Promise<TestStorage> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-storage-'));
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_DUCKDB_MEMORY_LIMIT: '512MB', ...opts.env });
  const control = opts.control ?? new MemoryControl();
  const clock = opts.clock ?? new ManualClock(Date.now());
  const engine = await StorageEngine.open({
    config,
    control,
    clock,
    log: pino({ level: 'silent' }),
    tuning: { segmentAgeMs: 60_000, merge: false, ...opts.tuning },
    store: opts.store,
  });
  return {
    engine,
    dataDir,
    control,
    clock,
    async close(o = {}) {
      await engine.close();
      if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const T0 = Date.UTC(2026, 0, 10, 12, 0, 0) * 1000;

/** n events, one per second from `startUs`, alternating hosts, with a few typed fields. */
export function makeEvents(
  n: number,
  o: { startUs?: number; env?: string; index?: string; stepUs?: number; tag?: string } = {},
): LogEvent[] {
  const start = o.startUs ?? T0;
  const out: LogEvent[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      timeUs: start + i * (o.stepUs ?? 1_000_000),
      env: o.env ?? 'default',
      index: o.index ?? 'main',
      host: `host-${i % 3}`,
      source: 'test',
      sourcetype: 'unit',
      message: `event ${o.tag ?? 'x'}-${i} status=${i % 2 === 0 ? 'ok' : 'failed'} Path /api/v${i % 5}`,
      fields: { seq: i, tag: o.tag ?? 'x', ratio: i / 4, even: i % 2 === 0 },
    });
  }
  return out;
}

/** Counts rows of the scan relation matching `where` (SQL over the relation's columns). */
export async function countWhere(
  engine: StorageEngine,
  where = 'true',
  spec: Partial<Parameters<StorageEngine['scan']>[0]> = {},
): Promise<number> {
  return engine.scan(
    { envs: ['default'], indexes: null, requiredTokens: [], fields: '*', ...spec },
    async (rel, exec) => {
      const r = await exec(`SELECT count(*) FROM ${rel.sql} AS e WHERE ${where}`);
      return Number(r.rows[0][0]);
    },
  );
}

/** How many times each `id` field value is stored (the exactly-once checks of the kill -9 tests). */
export function idCounts(engine: StorageEngine): Promise<Map<number, number>> {
  return engine.scan({ envs: ['default'], indexes: null, requiredTokens: [], fields: ['id'] }, async (rel, exec) => {
    const r = await exec(`SELECT id, count(*) FROM ${rel.sql} AS e GROUP BY id`);
    return new Map(r.rows.map(([id, n]) => [Number(id), Number(n)]));
  });
}

/** Writes events as a query test wants them: the first half sealed into blocks, the rest left live, so answers cover both read paths. */
export async function writeHalfSealed(engine: StorageEngine, events: LogEvent[]): Promise<void> {
  const half = Math.floor(events.length / 2);
  await engine.writer.write(events.slice(0, half), { wait: true });
  await engine.flush();
  await engine.writer.write(events.slice(half), { wait: true });
}
