import type { WorkerEntry } from '../ingest/common/decode-pool.js';
import { carriedSource } from '../packaged/carried.js';

/**
 * The worker threads' entry modules, for `new Worker(url)`: beside this file, as .ts under tsx
 * (tests, `npm run dev`) and as .js once built.
 */
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** src/workers/decode-worker.ts: what DecodePool (ingest/common/decode-pool.ts) runs. */
export const DECODE_WORKER_URL = new URL(`./decode-worker${EXT}`, import.meta.url);

function decodeWorker(): WorkerEntry {
  const source = carriedSource('decode-worker');
  return source === undefined ? DECODE_WORKER_URL : { source };
}

/** The decode worker as the server starts it: its bundled source inside the single executable, else its file. */
export const DECODE_WORKER = decodeWorker();
