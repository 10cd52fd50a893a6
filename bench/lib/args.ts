import { spawnSync } from 'node:child_process';

/** `--name N` from the command line, else `def`. */
export function numArg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

/** `grep` over a file (C locale, as fast as grep gets): its wall time and its output. */
export function grepMs(args: string[], file: string): { ms: number; count: string } {
  const t0 = performance.now();
  const r = spawnSync('grep', [...args, file], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  return { ms: performance.now() - t0, count: r.stdout.trim() };
}

/** The middle value (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Wall times of `runs` calls of `fn` (after the caller's warm-up): min, median and max, ms. */
export async function timeRuns(
  runs: number,
  fn: () => Promise<unknown>,
): Promise<{ min: number; median: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return { min: Math.min(...times), median: median(times), max: Math.max(...times) };
}
