import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ProcessServer } from '../helpers/process.js';
import { launchBrowser, newContext, signIn, watchErrors } from './browser.js';
import { adminToken, createIngestToken, TEST_ADMIN_PASSWORD } from '../helpers/auth.js';
import {
  APACHE_LOG,
  appEvents,
  ingestFile,
  ingestNdjson,
  OPENSSH_LOG,
  realDataAvailable,
  type AppEvent,
} from './data.js';

export interface UiServer {
  srv: ProcessServer;
  admin: string;
  ingest: string;
  app: AppEvent[];
  real: boolean;
  close(): Promise<void>;
}

/**
 * A real svc process (node src/main.ts) on a temporary data dir, serving the built UI, with the
 * generated app events in index `app` and, when SVC_REAL_DATA has them, the real Apache access
 * log in `apache` and the OpenSSH log in `openssh`.
 */
export async function startUiServer(env: Record<string, string> = {}): Promise<UiServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-ui-'));
  const srv = await startServerProcess({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SVC_LOG_LEVEL: 'info',
    ...env,
  });
  const admin = await adminToken(srv);
  const ingest = await createIngestToken(srv, { env: 'default' });
  const app = appEvents(600, Date.now());
  await ingestNdjson(srv, ingest, 'app', app);
  const real = realDataAvailable();
  if (real) {
    await ingestFile(srv, ingest, 'apache', APACHE_LOG);
    await ingestFile(srv, ingest, 'openssh', OPENSSH_LOG);
  }
  return {
    srv,
    admin,
    ingest,
    app,
    real,
    async close() {
      await srv.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server above, Chromium, and one page signed in as admin whose script errors and CSP violations are recorded. */
export interface UiSession {
  ui: UiServer;
  browser: Browser;
  ctx: BrowserContext;
  page: Page;
  errors: string[];
  close(): Promise<void>;
}

/** `env`: settings of the svc process beyond the fixture's own (e.g. a smaller search gate). */
export async function startUiSession(env: Record<string, string> = {}): Promise<UiSession> {
  const ui = await startUiServer(env);
  const browser = await launchBrowser();
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  await signIn(page, ui.srv.url, 'admin', TEST_ADMIN_PASSWORD);
  return {
    ui,
    browser,
    ctx,
    page,
    errors,
    async close() {
      await browser.close();
      await ui.close();
    },
  };
}
