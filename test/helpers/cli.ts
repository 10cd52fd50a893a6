import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entry.js';

/**
 * Runs the `svc` command line as a real subprocess (`src/cli/main.ts`, entry.ts says how), with a
 * clean environment: no SVC_* of the test runner, its own config dir (XDG_CONFIG_HOME), no colour
 * settings of the machine. `onPty` runs it on a pseudo-terminal through util-linux `script`.
 */

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRY = entryArgs('src/cli/main.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to the child's environment (SVC_URL, SVC_TOKEN, NO_COLOR…). */
  env?: Record<string, string>;
  /** Written to stdin, then closed; without it stdin is empty. */
  input?: string | Buffer;
  timeoutMs?: number;
}

/** A fresh config dir for one test's `svc login`. */
export function tempConfigHome(): string {
  return mkdtempSync(join(tmpdir(), 'svc-cli-config-'));
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NO_COLOR' && k !== 'XDG_CONFIG_HOME'),
  );
  return { ...clean, XDG_CONFIG_HOME: tempConfigHome(), ...extra };
}

/** Starts the CLI and leaves it running (svc tail); the caller stops it. */
export function spawnCli(
  args: string[],
  opts: CliOptions = {},
): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...ENTRY, ...args], {
    cwd: ROOT,
    env: childEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  if (opts.input !== undefined) child.stdin.end(opts.input);
  else child.stdin.end();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to its end (killed after `timeoutMs`, 60 s by default). */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const run = spawnCli(args, opts);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const code = await run.exited;
  clearTimeout(timer);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A single-quoted POSIX shell word. */
export function shellWord(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs the CLI on a pseudo-terminal: `script -qec "<command>" /dev/null` (util-linux), so that
 * stdin, stdout and stderr are a terminal. Answers everything the terminal showed (stdout and
 * stderr together, CRLF line ends). `onOutput` may answer text to type once the output holds something.
 */
export async function runCliOnPty(
  args: string[],
  opts: CliOptions & { type?: { after: string; text: string } } = {},
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, ...ENTRY, ...args].map(shellWord).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: childEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let typed = false;
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    if (opts.type && !typed && out.includes(opts.type.after)) {
      typed = true;
      child.stdin.write(opts.type.text);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output: out };
}
