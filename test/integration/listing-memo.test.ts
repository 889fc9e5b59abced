/**
 * Listings answered from a kept rendering (services/files/listing-memo.ts) are each user's own and
 * as fresh as a listing rendered anew: users with other rules, dotfile settings or scopes listing
 * one folder in turn, a change made outside fm, a settings change, a user's sorting and pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';

interface Listing {
  items: Array<{ name: string; path: string; size: number }>;
  numFiles: number;
  numTotal?: number;
}

let fm: FmServer;
let admin: Client;
let dir: string;

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  admin = await adminClient(fm);
  dir = path.join(fm.root, 'shared');
  fs.mkdirSync(dir);
  for (const [f, body] of Object.entries({ 'a.txt': 'a', 'b.txt': 'bb', '.env': 'secret', 'run.log': 'log' })) fs.writeFileSync(path.join(dir, f), body);
}, 60_000);
afterAll(() => fm.stop());

const names = (l: Listing) => l.items.map((i) => i.name);
const list = (c: Client, url = '/api/resources/shared') => c.json<Listing>(url);

describe('listings answered from a kept rendering', () => {
  it('give each user their own view of one folder, request after request', async () => {
    const carol = (
      await createUser(admin, fm, 'carol', { scope: '/', hideDotfiles: true, rules: [{ regex: true, allow: false, path: '', regexp: { raw: '\\.log$' } }] })
    ).client;
    const dave = (await createUser(admin, fm, 'dave', { scope: '/shared' })).client;
    for (let round = 0; round < 3; round++) {
      expect(names(await list(admin))).toEqual(['.env', 'a.txt', 'b.txt', 'run.log']);
      expect(names(await list(carol))).toEqual(['a.txt', 'b.txt']);
      const mine = await list(dave, '/api/resources/');
      expect(mine.items.map((i) => i.path)).toEqual(['/.env', '/a.txt', '/b.txt', '/run.log']);
      expect((await list(admin)).items[1].path).toBe('/shared/a.txt');
    }
  });

  it('show a change made outside fm just before the request', async () => {
    await list(admin);
    await list(admin);
    fs.appendFileSync(path.join(dir, 'a.txt'), 'more');
    expect((await list(admin)).items.find((i) => i.name === 'a.txt')?.size).toBe(5);
    fs.writeFileSync(path.join(dir, 'c.txt'), 'c');
    expect(names(await list(admin))).toContain('c.txt');
    fs.rmSync(path.join(dir, 'c.txt'));
    expect(names(await list(admin))).not.toContain('c.txt');
  });

  it('show a change no event of the folder reports: a link whose target, in another folder, grew', async () => {
    const other = path.join(fm.root, 'elsewhere');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'target.txt'), 'x');
    const linked = path.join(fm.root, 'linked');
    fs.mkdirSync(linked);
    fs.symlinkSync(path.join(other, 'target.txt'), path.join(linked, 'link.txt'));
    const sizeOf = async (url: string) => (await list(admin, url)).items.find((i) => i.name === 'link.txt')?.size;
    for (const url of ['/api/resources/linked', '/api/resources/linked?offset=0&limit=10']) {
      const before = fs.statSync(path.join(other, 'target.txt')).size;
      expect(await sizeOf(url)).toBe(before);
      expect(await sizeOf(url)).toBe(before);
      fs.appendFileSync(path.join(other, 'target.txt'), 'grown');
      expect(await sizeOf(url), url).toBe(before + 5);
    }
  });

  it('show a change in a page asked for twice', async () => {
    const url = '/api/resources/shared?offset=0&limit=2';
    await list(admin, url);
    await list(admin, url);
    fs.appendFileSync(path.join(dir, '.env'), '!');
    expect((await list(admin, url)).items[0]).toMatchObject({ name: '.env', size: 7 });
  });

  it('show a settings change on the next request', async () => {
    await list(admin);
    const put = (rules: unknown[]) => admin.fetch('/api/settings', { method: 'PUT', json: { rules } });
    expect((await put([{ regex: false, allow: false, path: '/shared/b.txt', regexp: { raw: '' } }])).status).toBe(200);
    expect(names(await list(admin))).not.toContain('b.txt');
    expect((await put([])).status).toBe(200);
    expect(names(await list(admin))).toContain('b.txt');
  });

  it("follow the user's sorting and the page asked for", async () => {
    const erin = await createUser(admin, fm, 'erin', { scope: '/' });
    expect(names(await list(erin.client))).toEqual(['.env', 'a.txt', 'b.txt', 'run.log']);
    const me = await erin.client.json<Record<string, unknown>>(`/api/users/${erin.id}`);
    const res = await erin.client.fetch(`/api/users/${erin.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['sorting'], data: { ...me, sorting: { by: 'name', asc: false } } },
    });
    expect(res.status).toBe(200);
    expect(names(await list(erin.client))).toEqual(['run.log', 'b.txt', 'a.txt', '.env']);
    const page = (offset: number) => list(admin, `/api/resources/shared?offset=${offset}&limit=2`);
    expect(names(await page(0))).toEqual(['.env', 'a.txt']);
    expect(names(await page(2))).toEqual(['b.txt', 'run.log']);
    expect((await page(2)).numTotal).toBe(4);
  });
});
