import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { after, before } from 'node:test';
import { startServer, type Server } from '../../src/server.js';
import { adminToken } from './auth.js';

export interface TestServer extends Server {
  dataDir: string;
}

/**
 * Starts a real svc in this process on a fresh temporary data dir and a free loopback port.
 * `env` adds SVC_* settings. close() stops it and removes the data dir unless keepData.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { keepData?: boolean; dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  const config = loadConfig({
    SVC_LISTEN: '127.0.0.1:0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: 'test-admin-password',
    SVC_LOG_LEVEL: 'silent',
    // the real hash cost (~0.6 s of CPU a hash) is tested in test/auth/passwords.test.ts only
    SVC_TEST_WEAK_PASSWORD_HASHES: '1',
    ...env,
  });
  const server = await startServer(config, pino({ level: 'silent' }));
  return {
    ...server,
    dataDir,
    async close() {
      await server.close();
      if (!opts.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for a whole suite: started before its first test with the given settings, closed after
 * its last; `use` receives it and an admin session (`suiteServer((s, a) => ([srv, admin] = [s, a]))`).
 */
export function suiteServer(use: (srv: TestServer, admin: string) => void, env: Record<string, string> = {}): void {
  let srv: TestServer | undefined;
  before(async () => {
    srv = await startTestServer(env);
    use(srv, await adminToken(srv));
  });
  after(async () => srv?.close());
}
