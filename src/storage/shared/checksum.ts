import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** SHA-256 (hex) and size of a file, streamed: blocks are large. */
export async function fileChecksum(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    h.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), size };
}

/** Runs at most `n` of the given tasks at once (downloads, uploads, sidecar fetches). */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly n: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // a finishing task hands its slot straight to the next waiter
    if (this.running >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
