/**
 * The worker threads' entry modules, for `new Worker(url)`: beside this file, as .ts under tsx
 * (tests, `npm run dev`) and as .js once built.
 */
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** src/workers/decode-worker.ts: what DecodePool (ingest/common/decode-pool.ts) runs. */
export const DECODE_WORKER_URL = new URL(`./decode-worker${EXT}`, import.meta.url);
