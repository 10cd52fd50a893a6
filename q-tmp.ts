import pino from 'pino';
import { loadConfig } from '/work/main/src/config/load.js';
import { systemClock } from '/work/main/src/clock/clock.js';
import { StorageEngine } from '/work/main/src/storage/engine.js';
const dir = process.argv[2];
const rare = process.argv[3];
const config = loadConfig({ SVC_DATA_DIR: dir, SVC_DUCKDB_MEMORY_LIMIT: '512MB' });
let t0 = performance.now();
const e = await StorageEngine.open({ config, control: { env: () => undefined, envs: () => [], settings: () => ({}) }, clock: systemClock, log: pino({ level: 'silent' }), tuning: { merge: false } });
console.log('open ms', Math.round(performance.now() - t0), e.stats());
const q = async (name: string, tokens: string[], sql: (r: string) => string) => {
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = await e.scan({ envs: ['default'], indexes: null, requiredTokens: tokens, fields: [] }, async (rel, exec) => ({ cand: rel.candidateEvents, res: await exec(sql(rel.sql)) }));
    console.log(name, Math.round(performance.now() - t), 'ms', 'candidates', r.cand, JSON.stringify(r.res.rows.slice(0, 2), (_k, v) => (v instanceof Date ? v.toISOString() : v)));
  }
};
await q('count', [], (r) => `SELECT count(*) FROM ${r} e`);
await q('rare term (pruned)', [rare], (r) => `SELECT count(*) FROM ${r} e WHERE regexp_matches(lower(message), '(^|[^a-z0-9_])${rare}($|[^a-z0-9_])')`);
await q('rare term contains', [rare], (r) => `SELECT count(*) FROM ${r} e WHERE contains(lower(message), '${rare}')`);
await q('stats count by host', [], (r) => `SELECT host, count(*) c FROM ${r} e GROUP BY host ORDER BY c DESC`);
await q('timechart 1h', [], (r) => `SELECT time_bucket(INTERVAL 1 hour, _time) b, count(*) FROM ${r} e GROUP BY b ORDER BY b`);
await e.close();
