import type { ProblemReporter } from '../problems.js';

// Files a search met and could not read (a damaged block, a WAL segment written before the store
// guarded its lines). One such file must not turn into an error for every search of its env: the
// scan that meets it leaves it out and runs again, later scans leave it out from the start, and
// each search of an env it belongs to says so in its answer (meta.warnings). A block stays left
// out until the next start; a live segment until it is rewritten or sealed.

interface Unreadable {
  kind: 'block' | 'segment';
  envs: string[];
  reason: string;
}

export class UnreadableFiles {
  private readonly files = new Map<string, Unreadable>();

  constructor(private readonly problems: ProblemReporter) {}

  has(path: string): boolean {
    return this.files.has(path);
  }

  /** Leaves `path` out of later scans and tells it once. */
  add(path: string, kind: Unreadable['kind'], envs: string[], err: unknown): void {
    if (this.files.has(path)) return;
    const reason = String((err as Error)?.message ?? err).split('\n')[0];
    this.files.set(path, { kind, envs, reason });
    const what = kind === 'block' ? 'block' : 'live WAL segment';
    this.problems.report(
      kind === 'block' ? 'block_unreadable' : 'segment_unreadable',
      `cannot read ${what} ${path}; searches leave it out: ${reason}`,
      path,
    );
  }

  /** `path` reads again (a segment rewritten or sealed): it is over. */
  clear(path: string): void {
    const u = this.files.get(path);
    if (!u) return;
    this.files.delete(path);
    this.problems.resolve(
      u.kind === 'block' ? 'block_unreadable' : 'segment_unreadable',
      `${path} is readable again`,
      path,
    );
  }

  /** What a search of `envs` (all when undefined) leaves out, as warnings for its answer. */
  warnings(envs?: string[]): string[] {
    const out: string[] = [];
    for (const [path, u] of this.files) {
      if (envs && !u.envs.some((e) => envs.includes(e))) continue;
      // the file's name, not its path nor DuckDB's message: those are for the operator (self-log)
      const name = path.split('/').pop();
      out.push(
        `part of the stored data could not be read and was left out of this search (${u.kind === 'block' ? 'block' : 'unsealed WAL segment'} ${name}); the operator is told in svc's self-log`,
      );
    }
    return out;
  }
}

/** The file among `paths` that a DuckDB error names (DuckDB quotes the path it could not read). */
export function fileNamedBy(err: unknown, paths: Iterable<string>): string | undefined {
  const msg = String((err as Error)?.message ?? '');
  if (!msg) return undefined;
  for (const p of paths) if (msg.includes(p)) return p;
  return undefined;
}
