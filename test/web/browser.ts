import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium); `.ci/run` installs it. */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or false when they can. */
export function browserSkipReason(): string | false {
  return existsSync(CHROMIUM)
    ? false
    : `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set SVC_CHROMIUM)`;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // this machine's network is closed: background fetches of Chromium's own only fail slowly
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export async function newContext(browser: Browser, opts: { dark?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: opts.dark ? 'dark' : 'light',
    acceptDownloads: true,
  });
}

/** Polls `fn` until it answers something truthy (or stops throwing); fails after `ms` with `what`. */
export async function waitFor<T>(what: string, fn: () => Promise<T> | T, ms = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Signs in through the login page and waits for the page it leads to. */
export async function signIn(
  page: Page,
  base: string,
  username: string,
  password: string,
  next?: string,
): Promise<void> {
  await page.goto(`${base}/ui/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForURL((u) => !u.pathname.startsWith('/ui/login'));
}

/**
 * The number the results toolbar shows ("48,795 events") once it answers the search in the page's
 * URL: the count carries what it answers (data-q, data-index, data-from, data-to), because the
 * previous result stays on screen while the next search runs.
 */
export async function shownCount(page: Page): Promise<number> {
  const text = await waitFor('the result count of the search in the URL', async () => {
    const u = new URL(page.url()).searchParams;
    const want = {
      q: u.get('q') ?? '',
      index: u.get('index') ?? '',
      from: u.has('from') ? u.get('from')! : '-24h',
      to: u.get('to') ?? '',
    };
    const el = page.locator('[data-testid=result-count]');
    const got = await el.evaluate(
      (e) => ({ q: e.dataset.q, index: e.dataset.index, from: e.dataset.from, to: e.dataset.to }),
      undefined,
      { timeout: 1000 },
    );
    if (got.q !== want.q || got.index !== want.index || got.from !== want.from || got.to !== want.to) return null;
    if (await page.locator('[data-testid=cancel]').count()) return null;
    return el.locator('strong').textContent({ timeout: 1000 });
  });
  return Number(text.replace(/[^\d]/g, ''));
}

/** Records JavaScript errors and CSP violations of a page, so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) errors.push(`csp: ${m.text()}`);
  });
  return errors;
}

/** docs/screenshots, where the tests leave what the docs show. */
export const SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

/**
 * Saves `name`.png in the page's theme as it stands and `name`-dark.png (or `name`-light.png) in the
 * other, switched the way a person's system switches it (prefers-color-scheme, which the UI follows
 * unless a theme was picked), then switches back. `target` shoots one element (a dialog) instead of
 * the page. Every fixed state is looked at in both themes.
 */
export async function shootBothThemes(page: Page, name: string, target?: Locator): Promise<void> {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const first = await theme();
  const other = first === 'dark' ? 'light' : 'dark';
  const shot = (file: string) =>
    (target ?? page).screenshot({ path: join(SCREENSHOTS, `${file}.png`), animations: 'disabled' });
  await shot(first === 'dark' ? `${name}-dark` : name);
  await page.emulateMedia({ colorScheme: other });
  await waitFor(`the ${other} theme`, async () => (await theme()) === other, 5_000);
  await shot(other === 'dark' ? `${name}-dark` : name);
  await page.emulateMedia({ colorScheme: first === 'dark' ? 'dark' : 'light' });
  await waitFor(`the ${first ?? 'light'} theme back`, async () => (await theme()) === first, 5_000);
}

/**
 * Starts keeping every text the page's toasts show: a notice leaves after 3 s, which a loaded
 * machine can take to look, so `sawToast` asks what was shown rather than what is.
 */
export async function recordToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { toasts: string[] }).toasts = seen;
    new MutationObserver(() => seen.push(document.querySelector('.toasts')?.textContent ?? '')).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
}

/** Waits until a toast since `recordToasts` held `text`. */
export async function sawToast(page: Page, text: string): Promise<void> {
  await waitFor(`the notice "${text}"`, () =>
    page.evaluate((t) => (window as unknown as { toasts: string[] }).toasts.some((x) => x.includes(t)), text),
  );
}
