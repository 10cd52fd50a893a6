import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatLogLine } from '../../src/cli/log-lines.js';

/** The process log: lines for a person on a terminal, JSON when piped (src/cli/log-lines.ts). */

const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.log('# the pseudo-terminal test is skipped: `script` (util-linux) is not installed');

/**
 * Runs `svc serve` (through `script` for a pseudo-terminal when `tty`) until it logs "svc listening",
 * then stops it; answers everything it wrote to stdout by then.
 */
function serveUntilListening(tty: boolean): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-loglines-'));
  const env = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    SVC_LISTEN: '127.0.0.1:0',
    SVC_ADMIN_PASSWORD: 'test-admin-password',
    SVC_TEST_WEAK_PASSWORD_HASHES: '1',
    SVC_LOG_LEVEL: 'info',
  };
  const node = `'${process.execPath}' --import tsx '${MAIN}' serve`;
  // detached: the child leads its own process group, so the whole group (script, node) is stopped
  const child = tty
    ? spawn('script', ['-qfc', node, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'ignore'], detached: true })
    : spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      });
  let out = '';
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`svc did not log "svc listening" within 90 s:\n${out}`));
    }, 90_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/svc listening/.test(out)) {
        stop();
        resolve(out);
      }
    });
    child.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  });
}

describe('the process log', () => {
  it('formats a record as time, level, message and key=value pairs, quoting where needed', () => {
    const line = formatLogLine(
      JSON.stringify({
        level: 30,
        time: Date.UTC(2026, 10, 27, 9, 5, 1, 20),
        pid: 1,
        hostname: 'h',
        msg: 'svc listening',
        url: 'http://127.0.0.1:7300',
        note: 'two words',
        n: 3,
        nested: { a: 1 },
      }),
    );
    assert.equal(
      line,
      '2026-11-27T09:05:01.020Z INFO  svc listening url=http://127.0.0.1:7300 note="two words" n=3 nested={"a":1}\n',
    );
  });

  it("puts an error's message in the line and its stack under it, and passes on a line that is not JSON", () => {
    const line = formatLogLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'request failed',
        err: { message: 'boom', stack: 'Error: boom\n  at x' },
      }),
    );
    assert.equal(line, '1970-01-01T00:00:00.000Z ERROR request failed err=boom\n    Error: boom\n      at x\n');
    assert.equal(formatLogLine('not json'), 'not json\n');
  });

  it('reads as lines for a person when stdout is a terminal', { skip: !hasScript }, async () => {
    const out = await serveUntilListening(true);
    const line = out.split(/\r?\n/).find((l) => l.includes('svc listening'))!;
    assert.match(
      line,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}svc listening url=http:\/\/127\.0\.0\.1:\d+ dataDir=/,
    );
    assert.ok(!out.includes('{"level"'), 'no JSON on the terminal');
  });

  it('stays JSON when stdout is piped', async () => {
    const out = await serveUntilListening(false);
    const line = out.split('\n').find((l) => l.includes('svc listening'))!;
    const rec = JSON.parse(line) as { level: number; msg: string; url: string };
    assert.equal(rec.level, 30);
    assert.equal(rec.msg, 'svc listening');
    assert.match(rec.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
