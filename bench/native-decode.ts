/**
 * The CPU cost of native ingest decoding alone (no HTTP, no writer): decodeText and decodeNdjson
 * over the real lines in SVC_REAL_DATA (default ../shared/data/real), as one body each.
 * Prints events/s and MiB/s (best of 8 runs, after warm-up).
 * Usage: npx tsx bench/native-decode.ts [dataDir]
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EventDefaults } from '../src/events/flatten.js';
import { timeContext } from '../src/events/timestamp.js';
import { decodeNdjson, decodeText } from '../src/ingest/native/decode.js';
import { loadRealLines, realDataDir } from './lib/dataset.js';

const dir = process.argv[2] ? resolve(process.argv[2]) : realDataDir();
if (!existsSync(dir)) {
  console.log(`no data at ${dir}; skipping`);
  process.exit(0);
}
const lines = loadRealLines(dir).map((l) => l.text);
const text = Buffer.from(lines.join('\n'));
// JSON lines as they are; text lines wrapped as {"message", "host", "n"}
const ndjson = Buffer.from(
  lines.map((l, k) => (l.startsWith('{') ? l : JSON.stringify({ message: l, host: `h${k % 50}`, n: k }))).join('\n'),
);
const ctx = timeContext('UTC', Date.now());
const d: EventDefaults = {
  env: 'default',
  index: 'main',
  host: '',
  source: '',
  sourcetype: '',
  timeUs: Date.now() * 1000,
};

for (const [name, decode, body] of [
  ['text/plain', decodeText, text],
  ['ndjson', decodeNdjson, ndjson],
] as const) {
  let best = Infinity;
  let n = 0;
  for (let r = 0; r < 10; r++) {
    const t = performance.now();
    n = decode(body, d, ctx).events.length;
    if (r >= 2) best = Math.min(best, performance.now() - t);
  }
  console.log(
    `${name.padEnd(11)} ${n} events: ${Math.round((n / best) * 1000).toLocaleString('en-US')} events/s, ${((body.length / 1048576 / best) * 1000).toFixed(0)} MiB/s`,
  );
}
