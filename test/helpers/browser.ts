/**
 * Browser tests: one Chromium per test file (playwright-core + Debian's /usr/bin/chromium), a fresh
 * context per page, and any console error or page error fails the test unless the test declared
 * it expected (for example the 403 a wrong password answers).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.FM_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

export interface PageOptions {
  width?: number;
  height?: number;
  colorScheme?: 'light' | 'dark';
  /** Browser language (navigator.language), e.g. 'ar'. */
  locale?: string;
}

export interface BrowserHarness {
  /** Opens a page in a fresh context (own cookies and storage). */
  newPage(opts?: PageOptions): Promise<Page>;
  /** Declares console errors matching this pattern as expected for the current test. */
  allowConsoleError(pattern: RegExp): void;
  /** Errors collected so far in the current test. */
  errors(): string[];
}

/** Registers the per-file browser lifecycle and returns the harness. */
export function useBrowser(): BrowserHarness {
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  let errors: string[] = [];
  let allowed: RegExp[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });
  afterEach(async () => {
    const unexpected = errors.filter((e) => !allowed.some((re) => re.test(e)));
    errors = [];
    allowed = [];
    for (const c of contexts) await c.close().catch(() => undefined);
    contexts = [];
    expect(unexpected, 'console or page errors').toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  return {
    async newPage(opts = {}) {
      if (!browser) throw new Error('browser not started');
      const context = await browser.newContext({
        viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
        colorScheme: opts.colorScheme ?? 'light',
        locale: opts.locale ?? 'en-US',
      });
      contexts.push(context);
      const page = await context.newPage();
      // Fail a step well before the test's own timeout, so the report names the step.
      page.setDefaultTimeout(10_000);
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console: ${msg.text()} (${msg.location().url})`);
      });
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      return page;
    },
    allowConsoleError(pattern) {
      allowed.push(pattern);
    },
    errors: () => errors,
  };
}

/** Logs in through the real login page (the page must be on /login). */
export async function loginThroughPage(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

/** Opens a URL of the app already logged in (token placed as the UI stores it). */
export async function openLoggedIn(page: Page, baseUrl: string, token: string, path = '/files/'): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.evaluate((t) => localStorage.setItem('jwt', t), token);
  await page.goto(`${baseUrl}${path}`);
}

/** The names of the listing's entries matching `selector` (rendered ones, in order), as each entry shows its name. */
export function itemNames(page: Page, selector = '[role=option]'): Promise<(string | null)[]> {
  return page.locator(selector).evaluateAll((els) => els.map((e) => e.querySelector('.item-name-text')?.textContent ?? null));
}
