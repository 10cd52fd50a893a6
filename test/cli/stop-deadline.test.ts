import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'stop-deadline-child.ts');

function run(mode: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, output });
    }),
  );
}

describe('the stop deadline (SVC_SHUTDOWN_TIMEOUT_SECS)', () => {
  it('logs what still runs and exits 1 when a stop hangs past it', async () => {
    const r = await run('wait');
    assert.equal(r.code, 1, r.output);
    assert.match(r.output, /"stillRunning":"a part that never closes".*svc did not stop within 1 s/);
  });

  it('kills the process from its watchdog thread when the main thread is stuck in a loop', async () => {
    const r = await run('spin');
    assert.equal(r.signal, 'SIGKILL', r.output);
    assert.match(r.output, /main thread does not answer: killed by the shutdown watchdog/);
  });
});
