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
