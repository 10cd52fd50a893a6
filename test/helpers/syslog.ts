import { createEnv, createIngestToken } from './auth.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * A svc whose syslog listeners write to `env`/`index`. The listeners start only with a token that
 * exists, so the token is made on a first start on the same data dir, then svc restarts with it and
 * `settings` (SVC_SYSLOG_UDP / SVC_SYSLOG_TCP and the rest).
 */
export async function startSyslogServer(
  dataDir: string,
  target: { env: string; index: string },
  settings: Record<string, string>,
): Promise<TestServer> {
  const first = await startTestServer({}, { dataDir });
  await createEnv(first, target.env);
  const token = await createIngestToken(first, target);
  await first.close();
  return startTestServer({ ...settings, SVC_SYSLOG_TOKEN: token }, { dataDir });
}
