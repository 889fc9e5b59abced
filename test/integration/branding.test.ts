/**
 * The branding folder (settings.branding.files): its img/logo.svg or img/logo.png and custom.css
 * replace the bundle's at /static/, within size and type limits, never through a link out of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { BRANDING_MAX_BYTES } from '../../src/server/branding.ts';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1" fill="red"/></svg>';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const CSS = 'body { --brand: hotpink; }';

let fm: FmServer;
let admin: Client;
let defaultLogo: Buffer;
let base: string;
let folders = 0;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  defaultLogo = Buffer.from(await (await fetch(`${fm.url}/static/img/logo.svg`)).arrayBuffer());
  base = tempDir('fm-branding-');
});
afterAll(async () => {
  await fm?.stop();
  fs.rmSync(base, { recursive: true, force: true });
});

/** A fresh branding folder holding `files` (name → content), set as settings.branding.files. */
async function useBranding(files: Record<string, string | Buffer>): Promise<string> {
  const dir = path.join(base, `b${++folders}`);
  fs.mkdirSync(path.join(dir, 'img'), { recursive: true });
  for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), body);
  await setFolder(dir);
  return dir;
}

async function setFolder(dir: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary settings JSON
  const s = await admin.json<Record<string, any>>('/api/settings');
  const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...s, branding: { ...s.branding, files: dir } } });
  expect(res.status).toBe(200);
}

async function page(): Promise<{ html: string; settings: { CSS: boolean; Logo: string } }> {
  const html = await (await fetch(`${fm.url}/`)).text();
  const m = /window\.FM=(.*?);<\/script>/s.exec(html);
  return { html, settings: JSON.parse(m![1]) };
}

const get = (p: string) => fetch(`${fm.url}/static/${p}`);
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('the branding folder', () => {
  it('without one: the default logo, no custom.css (404) and no link to it', async () => {
    await setFolder('');
    expect((await get('custom.css')).status).toBe(404);
    expect((await get('img/logo.png')).status).toBe(404);
    const { html, settings } = await page();
    expect(settings).toMatchObject({ CSS: false, Logo: '/static/img/logo.svg' });
    expect(html).not.toContain('custom.css');
    expect(await bytes(await get('img/logo.svg'))).toEqual(defaultLogo);
  });

  it('serves its custom.css as text/css and its SVG logo as an image that cannot run as a document', async () => {
    await useBranding({ 'custom.css': CSS, 'img/logo.svg': SVG });
    const css = await get('custom.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await css.text()).toBe(CSS);
    const logo = await get('img/logo.svg');
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(logo.headers.get('content-security-policy')).toMatch(/default-src 'none'.*sandbox/);
    expect(await logo.text()).toBe(SVG);
    const { html, settings } = await page();
    expect(settings).toMatchObject({ CSS: true, Logo: '/static/img/logo.svg' });
    expect(html).toContain('<link rel="stylesheet" href="/static/custom.css">');
  });

  it('takes a PNG logo when there is no SVG one', async () => {
    await useBranding({ 'img/logo.png': PNG });
    const logo = await get('img/logo.png');
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(await bytes(logo)).toEqual(PNG);
    expect((await page()).settings).toMatchObject({ CSS: false, Logo: '/static/img/logo.png' });
    expect(await bytes(await get('img/logo.svg'))).toEqual(defaultLogo);
  });

  it('serves a file of exactly the limit; one byte more is refused (custom.css 404, the default logo), and logged', async () => {
    await useBranding({ 'custom.css': Buffer.alloc(BRANDING_MAX_BYTES, 0x20), 'img/logo.svg': Buffer.alloc(BRANDING_MAX_BYTES + 1, 0x20) });
    expect((await bytes(await get('custom.css'))).length).toBe(BRANDING_MAX_BYTES);
    expect(await bytes(await get('img/logo.svg'))).toEqual(defaultLogo);
    expect((await page()).settings.Logo).toBe('/static/img/logo.svg');
    await useBranding({ 'custom.css': Buffer.alloc(BRANDING_MAX_BYTES + 1, 0x20) });
    expect((await get('custom.css')).status).toBe(404);
    expect((await page()).settings.CSS).toBe(false);
    expect(fm.output()).toMatch(/branding: not serving custom\.css from .*: custom\.css is larger than 1048576 bytes/);
  });

  it('never follows a link out of the folder (a file or the img folder); a link inside it is served', async () => {
    const outside = path.join(base, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.css'), 'secret');
    fs.writeFileSync(path.join(outside, 'logo.svg'), SVG);
    const dir = await useBranding({});
    fs.symlinkSync(path.join(outside, 'secret.css'), path.join(dir, 'custom.css'));
    fs.rmdirSync(path.join(dir, 'img'));
    fs.symlinkSync(outside, path.join(dir, 'img'));
    expect((await get('custom.css')).status).toBe(404);
    expect(await bytes(await get('img/logo.svg'))).toEqual(defaultLogo);
    expect((await page()).settings).toMatchObject({ CSS: false, Logo: '/static/img/logo.svg' });

    const inside = await useBranding({ 'real.css': CSS });
    fs.symlinkSync('real.css', path.join(inside, 'custom.css'));
    expect(await (await get('custom.css')).text()).toBe(CSS);
  });

  it('refuses what is not a regular file (a folder named custom.css)', async () => {
    const dir = await useBranding({});
    fs.mkdirSync(path.join(dir, 'custom.css'));
    expect((await get('custom.css')).status).toBe(404);
    expect((await page()).settings.CSS).toBe(false);
  });
});
