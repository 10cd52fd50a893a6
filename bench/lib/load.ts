import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/clock/clock.js';
import type { ControlReader } from '../../src/control/types.js';
import { StorageEngine } from '../../src/storage/engine.js';
import { QueryService } from '../../src/query/service.js';
import { ensureDataset, type DatasetInfo } from './dataset.js';
import { lineBatches, lineToEvent } from './events.js';

/** A control plane with only `default`: the benchmarks open the storage engine without the rest of svc. */
export const benchControl: ControlReader = {
  env: (n) => (n === 'default' ? { name: 'default', createdAt: new Date(0).toISOString() } : undefined),
  envs: () => [{ name: 'default', createdAt: new Date(0).toISOString() }],
  settings: () => ({}),
};

export async function openEngine(dataDir: string): Promise<StorageEngine> {
  const config = loadConfig({ ...process.env, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' });
  return StorageEngine.open({ config, control: benchControl, clock: systemClock, log: pino({ level: 'silent' }) });
}

/**
 * Loads an NDJSON data set (bench/lib/dataset.ts) into env `default`, index `main` of `dataDir`
 * through the Writer, seals everything and closes. Skipped when the dir says it is loaded, unless
 * `reload`. Answers whether it loaded.
 */
export async function loadDataDir(path: string, dataDir: string, reload = false): Promise<boolean> {
  if (!reload && existsSync(`${dataDir}/.loaded`)) return false;
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const engine = await openEngine(dataDir);
  const t0 = performance.now();
  const running = new Set<Promise<void>>();
  for (const lines of lineBatches(path, 2000)) {
    const p: Promise<void> = engine.writer
      .write(
        lines.map((l) => lineToEvent(l)),
        { wait: true },
      )
      .then(() => void running.delete(p));
    running.add(p);
    if (running.size >= 8) await Promise.race(running);
  }
  await Promise.all(running);
  await engine.flush();
  console.error(`loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await engine.close();
  writeFileSync(`${dataDir}/.loaded`, new Date().toISOString());
  return true;
}

/**
 * The query benchmarks' engine: the shared data set of `events` (bench/lib/dataset.ts) loaded once
 * into /tmp/svc-bench/query-data-<N> (`--reload` rebuilds it), opened, with a QueryService over it.
 */
export async function openQueryBench(
  events: number,
): Promise<{ ds: DatasetInfo; engine: StorageEngine; svc: QueryService; openMs: number }> {
  const ds = await ensureDataset(events);
  const dataDir = `/tmp/svc-bench/query-data-${events}`;
  await loadDataDir(ds.path, dataDir, process.argv.includes('--reload'));
  const t0 = performance.now();
  const engine = await openEngine(dataDir);
  const openMs = performance.now() - t0;
  return { ds, engine, svc: new QueryService({ store: engine, control: benchControl, clock: systemClock }), openMs };
}
