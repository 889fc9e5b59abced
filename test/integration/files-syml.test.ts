/**
 * SYML: links that escape the scope, dangling links and links to fm's database, on read,
 * listing, write, delete, copy, move and archive. Escaping targets are refused or left out;
 * writes never go through a dangling link; deleting a link removes the link only.
 * Also: the database inside the served root is never reachable (GHSA-239w, 8wc8, fmm7).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { canary, listTree, makeTree, rawRequest } from '../helpers/files.ts';

let fm: FmServer;
let alice: Client;
let outside: ReturnType<typeof canary>;
const OUTSIDE_SECRET = 'outside-dir-secret';
const BOB_SECRET = 'bob-secret-content';
const DENIED = 'rule-denied-content';
let scope: string;

function fixtures() {
  fs.rmSync(scope, { recursive: true, force: true });
  makeTree(path.join(fm.home, 'outside-dir'), { 'secret.txt': OUTSIDE_SECRET });
  makeTree(scope, {
    'ok.txt': 'alice ok',
    sub: { 'f.txt': 'in sub' },
    denied: { 'x.txt': DENIED },
    tree: { 'normal.txt': 'normal', esc: { link: path.join(fm.home, 'outside-dir') } },
    'out-file': { link: outside.path },
    'out-dir': { link: path.join(fm.home, 'outside-dir') },
    'out-rel': { link: '../../canary.txt' },
    'to-bob': { link: path.join(fm.root, 'bob') },
    dangling: { link: path.join(fm.home, 'nonexistent.txt') },
    'dangling-in': { link: 'missing-inside.txt' },
    'db-link': { link: fm.dbFile },
    'in-file': { link: 'ok.txt' },
    'in-dir': { link: 'sub' },
    'to-denied': { link: 'denied' },
  });
}

function expectOutsideIntact() {
  expect(outside.unchanged()).toBe(true);
  expect(listTree(path.join(fm.home, 'outside-dir'))).toEqual(['secret.txt']);
  expect(fs.readFileSync(path.join(fm.home, 'outside-dir', 'secret.txt'), 'utf8')).toBe(OUTSIDE_SECRET);
  expect(fs.readFileSync(path.join(fm.root, 'bob', 'secret.txt'), 'utf8')).toBe(BOB_SECRET);
  expect(fs.existsSync(path.join(fm.home, 'nonexistent.txt'))).toBe(false);
}

const send = (method: string, p: string, body?: string) => rawRequest(fm.url, p, { method, headers: { 'X-Auth': alice.token }, body });
const noLeak = (body: Buffer) => {
  for (const s of [OUTSIDE_SECRET, BOB_SECRET, DENIED, 'canary', 'SQLite format']) expect(body.includes(Buffer.from(s)), s).toBe(false);
};

beforeAll(async () => {
  // The links to the database are links to SQLite's file.
  fm = await startFm({ sqlite: true });
  outside = canary(fm.home);
  scope = path.join(fm.root, 'alice');
  makeTree(fm.root, { bob: { 'secret.txt': BOB_SECRET } });
  fs.mkdirSync(scope);
  const admin = await adminClient(fm);
  alice = (
    await createUser(admin, fm, 'alice', {
      scope: '/alice',
      rules: [{ regex: false, allow: false, path: '/denied', regexp: { raw: '' } }],
      perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true },
    })
  ).client;
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});
beforeEach(fixtures);

describe('SYML: reading through links', () => {
  it('links leaving the scope, to the database or to a denied folder are 403; dangling ones 404', async () => {
    const cases: Array<[string, number]> = [
      ['/out-file', 403],
      ['/out-dir', 403],
      ['/out-dir/secret.txt', 403],
      ['/out-rel', 403],
      ['/to-bob/secret.txt', 403],
      ['/db-link', 403],
      ['/to-denied', 403],
      ['/to-denied/x.txt', 403],
      ['/dangling', 404],
      ['/dangling-in', 404],
    ];
    for (const route of ['/api/resources', '/api/raw']) {
      for (const [p, status] of cases) {
        const res = await send('GET', `${route}${p}`);
        expect.soft(res.status, `${route}${p}`).toBe(status);
        noLeak(res.body);
      }
    }
    const cs = await send('GET', '/api/resources/out-file?checksum=md5');
    expect(cs.status).toBe(403);
  });

  it('links inside the scope work', async () => {
    expect((await send('GET', '/api/raw/in-file')).text).toBe('alice ok');
    expect((await send('GET', '/api/raw/in-dir/f.txt')).text).toBe('in sub');
    const info = JSON.parse((await send('GET', '/api/resources/in-file')).text);
    expect(info).toMatchObject({ isSymlink: true, type: 'text', content: 'alice ok' });
  });

  it('listings omit escaping links and show dangling ones as invalid_link', async () => {
    const res = await send('GET', '/api/resources/');
    const items = JSON.parse(res.text).items as Array<{ name: string; type: string; isDir: boolean; isSymlink: boolean }>;
    const byName = Object.fromEntries(items.map((i) => [i.name, i]));
    for (const hidden of ['out-file', 'out-dir', 'out-rel', 'to-bob', 'db-link', 'to-denied', 'denied']) expect(byName[hidden], hidden).toBeUndefined();
    expect(byName.dangling).toMatchObject({ type: 'invalid_link', isSymlink: true });
    expect(byName['dangling-in']).toMatchObject({ type: 'invalid_link' });
    expect(byName['in-file']).toMatchObject({ isSymlink: true, isDir: false });
    expect(byName['in-dir']).toMatchObject({ isSymlink: true, isDir: true });
    expect(res.text).not.toContain(fm.home);
  });
});

describe('SYML: writing through links', () => {
  it('never writes through a link leaving the scope', async () => {
    const attempts: Array<[string, string]> = [
      ['POST', '/out-file?override=true'],
      ['PUT', '/out-file'],
      ['POST', '/out-dir/new.txt'],
      ['PUT', '/out-dir/secret.txt'],
      ['POST', '/out-dir/newdir/'],
      ['POST', '/to-bob/planted.txt'],
      ['PUT', '/db-link'],
      ['POST', '/tree/esc/planted.txt'],
    ];
    for (const [method, p] of attempts) {
      const res = await send(method, `/api/resources${p}`, 'pwned');
      expect.soft([403, 404], `${method} ${p}: ${res.status}`).toContain(res.status);
    }
    expectOutsideIntact();
    expect(fs.existsSync(path.join(fm.root, 'bob', 'planted.txt'))).toBe(false);
  });

  it('never writes through a dangling link (GHSA-8wc8-hf36-mjh9)', async () => {
    for (const [method, p] of [
      ['POST', '/dangling?override=true'],
      ['PUT', '/dangling'],
      ['POST', '/dangling-in?override=true'],
      ['PUT', '/dangling-in'],
      ['POST', '/dangling/'],
    ]) {
      const res = await send(method, `/api/resources${p}`, 'pwned');
      expect.soft([403, 404, 409], `${method} ${p}: ${res.status}`).toContain(res.status);
    }
    expectOutsideIntact();
    expect(fs.existsSync(path.join(scope, 'missing-inside.txt'))).toBe(false);
    expect(fs.lstatSync(path.join(scope, 'dangling')).isSymbolicLink()).toBe(true);
  });

  it('saving a link inside the scope writes its target and keeps the link', async () => {
    expect((await send('PUT', '/api/resources/in-file', 'saved through link')).status).toBe(200);
    expect(fs.lstatSync(path.join(scope, 'in-file')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(scope, 'ok.txt'), 'utf8')).toBe('saved through link');
  });
});

describe('SYML: deleting links removes the link only (GHSA-fmm7-x4gx-8jhr)', () => {
  it('file, folder and dangling links', async () => {
    for (const p of ['/out-file', '/out-dir', '/out-rel', '/to-bob', '/dangling', '/db-link', '/in-dir']) {
      expect((await send('DELETE', `/api/resources${p}`)).status, p).toBe(204);
      expect(fs.existsSync(path.join(scope, p))).toBe(false);
    }
    expectOutsideIntact();
    expect(fs.existsSync(fm.dbFile)).toBe(true);
    expect(listTree(path.join(scope, 'sub'))).toEqual(['f.txt']);
  });

  it('a folder holding an escaping link', async () => {
    expect((await send('DELETE', '/api/resources/tree')).status).toBe(204);
    expect(fs.existsSync(path.join(scope, 'tree'))).toBe(false);
    expectOutsideIntact();
  });

  it('not through a link to something outside', async () => {
    expect((await send('DELETE', '/api/resources/out-dir/secret.txt')).status).toBe(403);
    expect((await send('DELETE', '/api/resources/to-bob/secret.txt')).status).toBe(403);
    expectOutsideIntact();
  });
});

describe('SYML: copy and move', () => {
  const patch = (from: string, action: string, to: string) => send('PATCH', `/api/resources${from}?action=${action}&destination=${encodeURIComponent(to)}`);

  it('copying an escaping link, or a folder holding one, is refused', async () => {
    expect((await patch('/out-file', 'copy', '/stolen.txt')).status).toBe(403);
    expect((await patch('/out-dir', 'copy', '/stolen')).status).toBe(403);
    expect((await patch('/to-bob', 'copy', '/stolen')).status).toBe(403);
    expect((await patch('/tree', 'copy', '/tree2')).status).toBe(403);
    expect((await patch('/db-link', 'copy', '/db.copy')).status).toBe(403);
    for (const n of ['stolen.txt', 'stolen', 'tree2', 'db.copy']) expect(fs.existsSync(path.join(scope, n)), n).toBe(false);
  });

  it('a copy or move cannot land outside through a link', async () => {
    expect((await patch('/ok.txt', 'copy', '/out-dir/stolen.txt')).status).toBe(403);
    expect((await patch('/ok.txt', 'rename', '/out-dir/stolen.txt')).status).toBe(403);
    expect((await patch('/ok.txt', 'copy', '/to-bob/stolen.txt')).status).toBe(403);
    expect([403, 409]).toContain((await patch('/ok.txt', 'copy', '/dangling')).status);
    expect((await send('PATCH', `/api/resources/ok.txt?action=copy&destination=${encodeURIComponent('/dangling')}&override=true`)).status).toBe(403);
    expectOutsideIntact();
  });

  it('copying a link inside the scope copies the content', async () => {
    expect((await patch('/in-file', 'copy', '/copied.txt')).status).toBe(200);
    expect(fs.lstatSync(path.join(scope, 'copied.txt')).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(scope, 'copied.txt'), 'utf8')).toBe('alice ok');
  });

  it('moving a link moves the link, never its target; it still refuses reads', async () => {
    expect((await patch('/out-dir', 'rename', '/moved-link')).status).toBe(200);
    expect(fs.lstatSync(path.join(scope, 'moved-link')).isSymbolicLink()).toBe(true);
    expect((await send('GET', '/api/raw/moved-link/secret.txt')).status).toBe(403);
    expect((await patch('/tree', 'rename', '/tree-moved')).status).toBe(200);
    expect((await send('GET', '/api/raw/tree-moved/esc/secret.txt')).status).toBe(403);
    expectOutsideIntact();
  });
});

describe('SYML: archives leave escaping and dangling links out', () => {
  it('the whole scope as tar and zip', async () => {
    for (const algo of ['tar', 'zip']) {
      const res = await send('GET', `/api/raw/?algo=${algo}`);
      expect(res.status).toBe(200);
      noLeak(res.body);
      if (algo === 'tar') {
        expect(res.body.includes(Buffer.from('alice ok'))).toBe(true);
        expect(res.body.includes(Buffer.from('in sub'))).toBe(true);
      }
    }
  });

  it('selected escaping links are refused', async () => {
    for (const list of ['/out-file', '/ok.txt,/out-dir', '/to-bob', '/db-link']) {
      const res = await send('GET', `/api/raw/?files=${encodeURIComponent(list)}`);
      expect(res.status, list).toBe(403);
    }
  });

  it('a folder holding an escaping link is archived without it', async () => {
    const res = await send('GET', '/api/raw/tree?algo=tar');
    expect(res.status).toBe(200);
    expect(res.body.includes(Buffer.from('normal'))).toBe(true);
    noLeak(res.body);
  });
});

describe("SYML: fm's own database inside the served root", () => {
  let inner: FmServer;
  let admin: Client;
  beforeAll(async () => {
    const home = fs.mkdtempSync(path.join(fm.home, 'inner-'));
    const root = path.join(home, 'root');
    fs.mkdirSync(root);
    inner = await startFm({ home, root, args: ['--database', path.join(root, 'fm.db')] });
    makeTree(root, { 'visible.txt': 'v', 'db-link': { link: 'fm.db' }, nested: { 'db-link': { link: '../fm.db-wal' } } });
    admin = await adminClient(inner);
  });
  afterAll(async () => {
    await inner.stop();
  });

  it('is hidden from listings, 404 by name, 403 through a link, and left out of archives', async () => {
    const h = { 'X-Auth': admin.token };
    const listing = JSON.parse((await rawRequest(inner.url, '/api/resources/', { headers: h })).text);
    const names = (listing.items as Array<{ name: string }>).map((i) => i.name);
    expect(names).toContain('visible.txt');
    expect(names.filter((n) => n.startsWith('fm.db'))).toEqual([]);
    expect(names).not.toContain('db-link');
    for (const p of ['/api/raw/fm.db', '/api/resources/fm.db', '/api/raw/fm.db-wal', '/api/resources/fm.db-shm']) {
      expect((await rawRequest(inner.url, p, { headers: h })).status, p).toBe(404);
    }
    expect((await rawRequest(inner.url, '/api/raw/db-link', { headers: h })).status).toBe(403);
    expect((await rawRequest(inner.url, '/api/raw/nested/db-link', { headers: h })).status).toBe(403);
    for (const [method, p] of [
      ['DELETE', '/api/resources/fm.db'],
      ['PUT', '/api/resources/fm.db'],
      ['POST', '/api/resources/fm.db?override=true'],
      ['PATCH', `/api/resources/fm.db?action=copy&destination=${encodeURIComponent('/copy.db')}`],
      ['PATCH', `/api/resources/visible.txt?action=rename&destination=${encodeURIComponent('/fm.db')}&override=true`],
    ]) {
      const res = await rawRequest(inner.url, p, { method, headers: h, body: method === 'PUT' || method === 'POST' ? 'x' : undefined });
      expect([403, 404], `${method} ${p}: ${res.status}`).toContain(res.status);
    }
    const tar = await rawRequest(inner.url, '/api/raw/?algo=tar', { headers: h });
    expect(tar.status).toBe(200);
    expect(tar.body.includes(Buffer.from('SQLite format'))).toBe(false);
    // Recursive operations on a folder that holds the database are refused.
    expect((await rawRequest(inner.url, `/api/resources/?action=copy&destination=${encodeURIComponent('/x')}`, { method: 'PATCH', headers: h })).status).toBe(
      403,
    );
    expect(fs.existsSync(path.join(inner.root, 'fm.db'))).toBe(true);
    // The server still works: the database was not touched.
    expect((await rawRequest(inner.url, '/api/users', { headers: h })).status).toBe(200);
  });
});
