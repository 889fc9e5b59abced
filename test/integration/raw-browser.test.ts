/**
 * XSS in a real browser: user files served inline by /api/raw carry a sandboxing CSP. Checked
 * in Debian's Chromium: an uploaded HTML or SVG file cannot run script (a control page without
 * the CSP shows the same script does run), and a PDF still renders in Chromium's viewer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

let fm: FmServer;
let admin: Client;
let browser: Browser;

const EVIL_HTML = `<!doctype html><html><head><title>clean</title></head><body>
<script>document.title = 'pwned'; fetch('/api/pwned-html?c=' + document.cookie);</script>
<img src="x" onerror="fetch('/api/pwned-onerror')"></body></html>`;
const EVIL_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="fetch('/api/pwned-svg-onload')">
<script>fetch('/api/pwned-svg-script')</script><rect width="100" height="100" fill="blue"/></svg>`;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  await page.setContent('<h1 style="font-size:96px;color:#ff0000">RED PDF</h1>');
  fs.writeFileSync(path.join(fm.root, 'doc.pdf'), await page.pdf());
  await page.close();
  fs.writeFileSync(path.join(fm.root, 'evil.html'), EVIL_HTML);
  fs.writeFileSync(path.join(fm.root, 'evil.svg'), EVIL_SVG);
});
afterAll(async () => {
  await browser?.close();
  await fm.stop();
});

async function openInline(name: string) {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'auth', value: admin.token, url: fm.url, sameSite: 'Strict' }]);
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const res = await page.goto(`${fm.url}/api/raw/${name}?inline=true`);
  await page.waitForTimeout(1500);
  return { context, page, requests, res };
}

describe('XSS in Chromium', () => {
  it('the control: the same HTML does run script without the CSP', async () => {
    const page = await browser.newPage();
    await page.setContent(EVIL_HTML.replace(/fetch\([^)]*\)/g, '0'));
    expect(await page.title()).toBe('pwned');
    await page.close();
  });

  it('an uploaded HTML file served inline runs no script', async () => {
    const { context, page, requests, res } = await openInline('evil.html');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain('sandbox');
    expect(await page.title()).toBe('clean');
    expect(requests.filter((u) => u.includes('pwned'))).toEqual([]);
    await context.close();
  });

  it('an uploaded SVG served inline runs no script', async () => {
    const { context, requests, res } = await openInline('evil.svg');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toBe('image/svg+xml');
    expect(requests.filter((u) => u.includes('pwned'))).toEqual([]);
    await context.close();
  });

  it("a PDF served inline still renders in Chromium's viewer under the sandbox CSP", async () => {
    // What the server sends (Chromium reports the PDF navigation's headers rewritten).
    const sent = await admin.fetch('/api/raw/doc.pdf?inline=true');
    expect(sent.headers.get('content-security-policy')).toContain('sandbox');
    expect(sent.headers.get('content-type')).toBe('application/pdf');
    const { context, page, res } = await openInline('doc.pdf');
    expect(res?.status()).toBe(200);
    await page.waitForTimeout(1500);
    const { data, info } = await sharp(await page.screenshot())
      .raw()
      .toBuffer({ resolveWithObject: true });
    let red = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i] > 200 && data[i + 1] < 80 && data[i + 2] < 80) red++;
    // The viewer drew the page: the big red heading covers thousands of pixels.
    expect(red).toBeGreaterThan(2000);
    await context.close();
  });
});
