/**
 * Micro-benchmark of timestamp extraction: leadingTimestamp over every text line of the real
 * samples and parseTimeValue over typical field values. Prints lines/s per file family.
 * Usage: npx tsx bench/time-parse.ts [dataDir]   (default ../shared/data/real, or SVC_REAL_DATA)
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { leadingTimestamp, parseTimeValue, timeContext } from '../src/events/timestamp.js';
import { loadRealLines, realDataDir } from './lib/dataset.js';

const dir = process.argv[2] ? resolve(process.argv[2]) : realDataDir();
if (!existsSync(dir)) {
  console.log(`no data at ${dir}; skipping`);
  process.exit(0);
}
// text lines only: JSON lines carry their time in a field, not at the start
const lines = loadRealLines(dir)
  .filter((l) => !l.json)
  .map((l) => l.text);
const ctx = timeContext('UTC', Date.now());
const zctx = timeContext('Europe/Berlin', Date.now());

function run(name: string, n: number, fn: () => void): void {
  fn(); // warm up
  const t0 = process.hrtime.bigint();
  fn();
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`${name.padEnd(40)} ${(n / secs / 1e6).toFixed(2)} M/s`);
}

let sink = 0;
const reps = 20;
run(`leadingTimestamp, ${lines.length} real lines`, lines.length * reps, () => {
  for (let r = 0; r < reps; r++) for (const l of lines) sink += leadingTimestamp(l, ctx) ?? 0;
});
run(`leadingTimestamp Europe/Berlin`, lines.length * reps, () => {
  for (let r = 0; r < reps; r++) for (const l of lines) sink += leadingTimestamp(l, zctx) ?? 0;
});
const values: unknown[] = [
  '2018-03-24T17:15:47.733658Z',
  1521911747.733658,
  '1521911747733658000',
  1521911747733,
  '2016-12-19 18:01:53,612',
];
const N = 2_000_000;
run('parseTimeValue (mixed values)', N, () => {
  for (let i = 0; i < N; i++) sink += parseTimeValue(values[i % values.length], ctx) ?? 0;
});
const iso = '2018-03-24T17:15:47.733658Z';
run('parseTimeValue (RFC 3339)', N, () => {
  for (let i = 0; i < N; i++) sink += parseTimeValue(iso, ctx) ?? 0;
});
run('Date.parse (RFC 3339), for comparison', N, () => {
  for (let i = 0; i < N; i++) sink += Date.parse(iso);
});
if (sink === 42) console.log('');
