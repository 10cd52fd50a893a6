import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { entryArgs } from './entry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ProcessServer {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then wait for exit; answers the exit code. */
  stop(): Promise<number | null>;
}

export interface ProcessResult {
  code: number | null;
  output: string;
}

function spawnSvc(env: Record<string, string>): {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
} {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  // benchmarks: BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile per thread of the server at its exit
  const prof = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF_DIR] : [];
  const child = spawn(process.execPath, [...prof, ...entryArgs('src/main.ts')], {
    cwd: ROOT,
    // cheap password hashes: the real cost is tested in test/auth/passwords.test.ts only
    env: { ...clean, SVC_LISTEN: '127.0.0.1:0', SVC_LOG_LEVEL: 'info', SVC_TEST_WEAK_PASSWORD_HASHES: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  child.stdout.on('data', (d: Buffer) => (buf += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (buf += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => buf, exited };
}

/**
 * Starts svc (`src/main.ts`, entry.ts says how) as a real process with the given SVC_* settings (listening
 * on a free loopback port) and resolves once it logs "svc listening". Rejects with its output if
 * it exits first or takes longer than 30 s.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ProcessServer> {
  const { child, out, exited } = spawnSvc(env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // a start that timed out must not leave the process behind (it would hold the test file open)
      child.kill('SIGKILL');
      reject(new Error(`svc did not start in 30 s:\n${out()}`));
    }, 30_000);
    const check = () => {
      for (const line of out().split('\n')) {
        if (!line.includes('svc listening')) continue;
        try {
          const rec = JSON.parse(line) as { url?: string };
          if (rec.url) {
            clearTimeout(timer);
            child.stdout!.off('data', check);
            resolve(rec.url);
            return;
          }
        } catch {
          // not a JSON log line
        }
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc exited with ${code} before listening:\n${out()}`));
    });
  });
  return {
    url,
    child,
    output: out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs svc expecting it to stop by itself (a start-up failure); kills it after 30 s. */
export async function runServerProcessToExit(env: Record<string, string>): Promise<ProcessResult> {
  const { child, out, exited } = spawnSvc(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: out() };
}
