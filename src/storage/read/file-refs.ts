import { rmSync } from 'node:fs';

/**
 * Reference counts on files a running scan reads (blocks, WAL segments). Deleting a referenced
 * file is deferred until the last scan using it settles, so merge and retention never pull a
 * file out from under DuckDB. Single JS thread: no locking needed.
 */
export class FileRefs {
  private readonly refs = new Map<string, number>();
  private readonly deferred = new Map<string, () => void>();

  acquire(paths: string[]): void {
    for (const p of paths) this.refs.set(p, (this.refs.get(p) ?? 0) + 1);
  }

  release(paths: string[]): void {
    for (const p of paths) {
      const n = (this.refs.get(p) ?? 1) - 1;
      if (n > 0) {
        this.refs.set(p, n);
        continue;
      }
      this.refs.delete(p);
      const del = this.deferred.get(p);
      if (del) {
        this.deferred.delete(p);
        del();
      }
    }
  }

  /** Runs `del` now, or when the last reader of `path` releases it. */
  deleteWhenFree(path: string, del: () => void = () => rmSync(path, { force: true })): void {
    if (this.refs.has(path)) this.deferred.set(path, del);
    else del();
  }
}
