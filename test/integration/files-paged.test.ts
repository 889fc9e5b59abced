/** Paged listings (?offset=&limit=, what the fm UI asks for first): the pages put together are the full listing. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { makeTree } from '../helpers/files.ts';

interface Listing {
  items: Array<{ name: string; size: number; isDir: boolean; modified: string }>;
  numDirs: number;
  numFiles: number;
  numTotal?: number;
}

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  makeTree(path.join(fm.root, 'mixed'), {
    Zeta: {},
    alpha: { inner: 'i' },
    'b.txt': 'bbb',
    'a10.txt': 'a',
    'a9.txt': 'aaaaaa',
    'c.bin': '',
    '.hidden': 'h',
    'dir-link': { link: 'alpha' },
    'file-link': { link: 'b.txt' },
    'out-link': { link: '/etc' },
    '.fm-partial-0123456789abcdef': 'half an upload',
  });
  fs.writeFileSync(Buffer.from(`${fm.root}/mixed/caf\xe9.txt`, 'latin1'), 'not UTF-8');
}, 60_000);
afterAll(() => fm.stop());

async function pagesOf(client: Client, folder: string, size: number): Promise<{ names: string[]; pages: Listing[] }> {
  const pages: Listing[] = [];
  for (let offset = 0; offset === 0 || offset < pages[0].numTotal!; offset += size) {
    pages.push(await client.json<Listing>(`/api/resources${folder}?offset=${offset}&limit=${size}`));
  }
  return { names: pages.flatMap((p) => p.items.map((i) => i.name)), pages };
}

describe('paged listings', () => {
  it('put together, equal the full listing in every sorting, with the folder’s counts on each page', async () => {
    for (const sorting of [
      { by: 'name', asc: true },
      { by: 'name', asc: false },
      { by: 'size', asc: true },
      { by: 'modified', asc: false },
    ]) {
      const res = await admin.fetch('/api/users/1', { method: 'PUT', json: { what: 'user', which: ['sorting'], data: { id: 1, sorting } } });
      expect(res.status).toBe(200);
      const full = await admin.json<Listing>('/api/resources/mixed');
      expect(full.numTotal).toBeUndefined(); // filebrowser's answer when no page is asked for
      const { names, pages } = await pagesOf(admin, '/mixed', 3);
      expect(names, JSON.stringify(sorting)).toEqual(full.items.map((i) => i.name));
      for (const page of pages) {
        expect(page).toMatchObject({ numTotal: full.items.length, numDirs: full.numDirs, numFiles: full.numFiles });
      }
    }
    const full = await admin.json<Listing>('/api/resources/mixed');
    expect(full.items.map((i) => i.name)).toContain('caf\uf7e9.txt');
    expect(full.items.map((i) => i.name)).not.toContain('out-link');
    expect(full.items.map((i) => i.name)).not.toContain('.fm-partial-0123456789abcdef');
  });

  it('leave out what the user may not see, and count without it', async () => {
    const bob = await createUser(admin, fm, 'bob', { scope: '.', hideDotfiles: true, rules: [{ regex: false, allow: false, path: '/mixed/b.txt' }] });
    const full = await bob.client.json<Listing>('/api/resources/mixed');
    const { names, pages } = await pagesOf(bob.client, '/mixed', 4);
    expect(names).toEqual(full.items.map((i) => i.name));
    expect(names).not.toContain('.hidden');
    expect(names).not.toContain('b.txt');
    expect(pages[0].numTotal).toBe(full.items.length);
  });

  it('select the first page of a large folder just read (not sorted yet) as the start of the full listing', async () => {
    const dir = path.join(fm.root, 'select');
    const tree: Parameters<typeof makeTree>[1] = { '.dot': 'd', 'to-dir': { link: 'D3' }, 'to-file': { link: 'f7.txt' } };
    for (let i = 0; i < 12; i++) tree[`D${i}`] = {};
    for (let i = 0; i < 40; i++) tree[i % 2 ? `f${i}.txt` : `F-${i}.TXT`] = 'x'.repeat(i);
    makeTree(dir, tree);
    for (const sorting of [
      { by: 'name', asc: true },
      { by: 'name', asc: false },
    ]) {
      await admin.fetch('/api/users/1', { method: 'PUT', json: { what: 'user', which: ['sorting'], data: { id: 1, sorting } } });
      for (const limit of [1, 5, 13]) {
        // A change just now keeps the folder's names from being remembered (and sorted) between requests.
        fs.rmSync(path.join(dir, 'touch'), { force: true });
        fs.writeFileSync(path.join(dir, 'touch'), '');
        const page = await admin.json<Listing>(`/api/resources/select?offset=0&limit=${limit}`);
        const full = await admin.json<Listing>('/api/resources/select');
        expect(page.items, `${JSON.stringify(sorting)} limit ${limit}`).toEqual(full.items.slice(0, limit));
        expect(page).toMatchObject({ numTotal: full.items.length, numDirs: full.numDirs, numFiles: full.numFiles });
      }
    }
  });

  it('of a remembered folder follow each view: a rule change, another user, a link now leading elsewhere', async () => {
    makeTree(path.join(fm.root, 'kept'), { 'a.txt': 'a', 'b.txt': 'b', '.dot': 'd', sub: {}, 'to-x': { link: '../elsewhere/x' } });
    makeTree(path.join(fm.root, 'elsewhere'), { x: {} });
    const page = async (c: Client) => (await c.json<Listing>('/api/resources/kept?offset=0&limit=10')).items.map((i) => i.name);
    const rules = (list: unknown[]) => admin.fetch('/api/settings', { method: 'PUT', json: { rules: list } });
    await admin.fetch('/api/users/1', { method: 'PUT', json: { what: 'user', which: ['sorting'], data: { id: 1, sorting: { by: 'name', asc: true } } } });
    // The folder's last change then looks older than the racy window: its names and their split are kept.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      expect(await page(admin)).toEqual(['sub', 'to-x', '.dot', 'a.txt', 'b.txt']);
      expect((await rules([{ regex: false, allow: false, path: '/kept/b.txt', regexp: { raw: '' } }])).status).toBe(200);
      expect(await page(admin)).toEqual(['sub', 'to-x', '.dot', 'a.txt']);
      const dora = await createUser(admin, fm, 'dora', { scope: '.', hideDotfiles: true });
      expect(await page(dora.client)).toEqual(['sub', 'to-x', 'a.txt']);
      expect((await rules([])).status).toBe(200);
      expect(await page(admin)).toEqual(['sub', 'to-x', '.dot', 'a.txt', 'b.txt']);
      // The link's target becomes a file: the kept folder did not change, the link is listed among the files.
      fs.rmdirSync(path.join(fm.root, 'elsewhere', 'x'));
      fs.writeFileSync(path.join(fm.root, 'elsewhere', 'x'), 'now a file');
      expect(await page(admin)).toEqual(['sub', '.dot', 'a.txt', 'b.txt', 'to-x']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a negative or non-numeric page with 400', async () => {
    for (const q of ['offset=-1&limit=2', 'offset=0&limit=x', 'limit=1.5']) {
      expect((await admin.fetch(`/api/resources/mixed?${q}`)).status, q).toBe(400);
    }
  });
});
