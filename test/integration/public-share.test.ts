/**
 * The public share API (no login): file and folder shares, traversal and symlinks (PATH, SYML),
 * passwords and tokens (SHARE 3v48-283x-f2w4), owner permission and rule re-checks
 * (SHARE 68j5-4m99-w9w9, v9w4-gm2x-6rvf, j9jx-hp4c-ghhh), recreated paths (pp88-jhwj-5qh5).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { openDatabase } from '../../src/storage/db.ts';
import { UsersRepo } from '../../src/storage/repos/users.ts';
import { PERMS, publicInfo, rawGet, share, updateUser, type ShareDto } from './share-helpers.ts';

interface Info {
  name: string;
  path: string;
  isDir: boolean;
  content?: string;
  token?: string;
  subtitles?: string[];
  items?: Array<{ name: string; path: string; isDir: boolean; content?: string }>;
}

let fm: FmServer;
let admin: Client;
let alice: { client: Client; id: number };
let docs: ShareDto;
let file: ShareDto;

function put(rel: string, content = rel) {
  const abs = path.join(fm.root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

beforeAll(async () => {
  fm = await startFm();
  put('alice/docs/b.txt', 'bravo');
  put('alice/docs/a.txt', 'alpha');
  put('alice/docs/C.txt', 'charlie');
  put('alice/docs/sub/deep.txt', 'deep');
  put('alice/docs/secret/s.txt', 'secret-in-share');
  put('alice/docs/.hidden', 'dot');
  put('alice/docs/movie.mp4', 'not really');
  put('alice/movie.srt', 'sibling subtitle');
  put('alice/docs-private/p.txt', 'sibling-prefix');
  put('alice/private.txt', 'private-in-scope');
  put('alice/notes.txt', 'shared file');
  put('bob/outside.txt', 'outside-scope');
  fs.symlinkSync('../../bob', path.join(fm.root, 'alice/docs/link-out'));
  fs.symlinkSync('../private.txt', path.join(fm.root, 'alice/docs/link-sibling'));
  fs.symlinkSync('../docs-private', path.join(fm.root, 'alice/docs/link-sibling-dir'));
  fs.symlinkSync('sub/deep.txt', path.join(fm.root, 'alice/docs/link-in'));
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  docs = await share(alice.client, '/docs');
  file = await share(alice.client, '/notes.txt');
});

afterAll(async () => {
  await fm?.stop();
});

const LEAKS = /private-in-scope|sibling-prefix|outside-scope|sibling subtitle/;

describe('file shares', () => {
  it('return the file with an empty path and its content, without login', async () => {
    const res = await publicInfo(fm, file.hash);
    expect(res.status).toBe(200);
    const info = (await res.json()) as Info;
    expect(info).toMatchObject({ name: 'notes.txt', path: '', isDir: false, content: 'shared file' });
    expect(info.token).toBeUndefined();
  });

  it('ignore the subpath', async () => {
    for (const sub of ['/anything', '/../private.txt', '/notes.txt']) {
      const res = await rawGet(fm.url, `/api/public/share/${file.hash}${sub}`);
      expect([200, 403], sub).toContain(res.status);
      expect(res.text).not.toMatch(LEAKS);
      if (res.status === 200) expect(JSON.parse(res.text)).toMatchObject({ name: 'notes.txt', content: 'shared file' });
    }
  });

  it('do not reveal sibling subtitles of a shared video', async () => {
    put('alice/movie.mp4', 'not really a video');
    const video = await share(alice.client, '/movie.mp4');
    const info = (await (await publicInfo(fm, video.hash)).json()) as Info;
    expect(info).toMatchObject({ name: 'movie.mp4', path: '' });
    expect(info.subtitles).toBeUndefined();
    expect(JSON.stringify(info)).not.toContain('movie.srt');
  });
});

describe('folder shares (PATH mr74-928f-rw69: rooted at the folder)', () => {
  it('list the folder A→Z under its own name, with paths relative to the share and no content', async () => {
    const info = (await (await publicInfo(fm, docs.hash)).json()) as Info;
    expect(info.name).toBe('docs');
    expect(info.path).toBe('/');
    const names = info.items!.map((i) => i.name);
    expect(names.filter((n) => !n.startsWith('link'))).toEqual(['secret', 'sub', '.hidden', 'a.txt', 'b.txt', 'C.txt', 'movie.mp4']);
    expect(info.items!.find((i) => i.name === 'a.txt')!.path).toBe('/a.txt');
    expect(info.items!.every((i) => i.content === undefined)).toBe(true);
  });

  it('open subfolders and files by subpath', async () => {
    const sub = (await (await publicInfo(fm, docs.hash, '/sub')).json()) as Info;
    expect(sub.items!.map((i) => i.path)).toEqual(['/sub/deep.txt']);
    const a = (await (await publicInfo(fm, docs.hash, '/a.txt')).json()) as Info;
    expect(a).toMatchObject({ name: 'a.txt', path: '/a.txt', content: 'alpha' });
  });

  it('PATH: traversal with .., encoded forms, backslashes and sibling prefixes is refused', async () => {
    const attempts = [
      '/../private.txt',
      '/..%2fprivate.txt',
      '/%2e%2e/private.txt',
      '/%2e%2e%2fprivate.txt',
      '/%2E%2E%2Fprivate.txt',
      '/..%5cprivate.txt',
      '/..\\private.txt',
      '/sub/../../private.txt',
      '/sub/%2e%2e/%2e%2e/private.txt',
      '//..//private.txt',
      '/./../private.txt',
      '/../docs-private/p.txt',
      '/%2e%2e/docs-private/p.txt',
      '/../../bob/outside.txt',
      '/..%252fprivate.txt',
      '/%252e%252e/private.txt',
      '/%00../private.txt',
      '/%c0%ae%c0%ae/private.txt',
    ];
    for (const sub of attempts) {
      const res = await rawGet(fm.url, `/api/public/share/${docs.hash}${sub}`);
      expect([400, 403, 404], sub).toContain(res.status);
      expect(res.text, sub).not.toMatch(LEAKS);
    }
    // The hash segment cannot smuggle a path either.
    for (const raw of [`/api/public/share/${docs.hash}%2f..%2fprivate.txt`, `/api/public/share/..%2f${docs.hash}`, '/api/public/share/../share/x']) {
      const res = await rawGet(fm.url, raw);
      expect(res.status, raw).not.toBe(200);
      expect(res.text).not.toMatch(LEAKS);
    }
  });

  it('SYML 239w-m3h6-ch8v: links leaving the share are hidden and refused; links inside work', async () => {
    const info = (await (await publicInfo(fm, docs.hash)).json()) as Info;
    const names = info.items!.map((i) => i.name);
    expect(names).not.toContain('link-out');
    expect(names).not.toContain('link-sibling');
    expect(names).not.toContain('link-sibling-dir');
    expect(names).toContain('link-in');
    for (const sub of ['/link-out', '/link-out/outside.txt', '/link-sibling', '/link-sibling-dir', '/link-sibling-dir/p.txt']) {
      const res = await rawGet(fm.url, `/api/public/share/${docs.hash}${sub}`);
      expect([403, 404], sub).toContain(res.status);
      expect(res.text).not.toMatch(LEAKS);
    }
    const inside = (await (await publicInfo(fm, docs.hash, '/link-in')).json()) as Info;
    expect(inside.content).toBe('deep');
  });

  it('unknown or malformed hashes are 404', async () => {
    for (const h of ['AAAAAAAAAAAA', docs.hash.slice(0, 6), `${docs.hash}x`, '%00', 'a*b']) {
      expect((await rawGet(fm.url, `/api/public/share/${h}`)).status, h).toBe(404);
    }
    expect((await rawGet(fm.url, '/api/public/share/')).status).toBe(404);
  });
});

describe('SHARE 3v48-283x-f2w4: passwords', () => {
  const password = 'pä ss/wörd%?';
  let locked: ShareDto;
  let lockedDir: ShareDto;

  beforeAll(async () => {
    locked = await share(alice.client, '/notes.txt', { password });
    lockedDir = await share(alice.client, '/docs', { password });
  });

  it('without a password: 401, and nothing is revealed', async () => {
    for (const [h, sub] of [
      [locked.hash, ''],
      [lockedDir.hash, ''],
      [lockedDir.hash, '/a.txt'],
      [lockedDir.hash, '/sub'],
    ]) {
      const res = await publicInfo(fm, h, sub);
      expect(res.status).toBe(401);
      expect(await res.text()).not.toMatch(/alpha|shared file|deep/);
    }
  });

  it('with a wrong password or token: 401', async () => {
    expect((await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': 'nope' })).status).toBe(401);
    expect((await fetch(`${fm.url}/api/public/share/${locked.hash}?token=nope`)).status).toBe(401);
    expect((await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent('pä ss/wörd') })).status).toBe(401);
  });

  it('with the URL-encoded password header: 200 and the token', async () => {
    const res = await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent(password) });
    expect(res.status).toBe(200);
    const info = (await res.json()) as Info;
    expect(info.content).toBe('shared file');
    expect(info.token).toMatch(/^[A-Za-z0-9_-]{64,}$/);
  });

  it('with the token: 200 for the share and any path inside it', async () => {
    const first = (await (await publicInfo(fm, lockedDir.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent(password) })).json()) as Info;
    const token = first.token!;
    expect(first.items!.length).toBeGreaterThan(0);
    const sub = await fetch(`${fm.url}/api/public/share/${lockedDir.hash}/sub?token=${token}`);
    expect(sub.status).toBe(200);
    expect(((await sub.json()) as Info).token).toBe(token);
    const a = await fetch(`${fm.url}/api/public/share/${lockedDir.hash}/a.txt?token=${token}`);
    expect(((await a.json()) as Info).content).toBe('alpha');
    // A token opens only its own link.
    expect((await fetch(`${fm.url}/api/public/share/${locked.hash}?token=${token}`)).status).toBe(401);
  });

  it('a link without password never shows a token', async () => {
    const info = (await (await publicInfo(fm, docs.hash)).json()) as Info;
    expect(info.token).toBeUndefined();
  });
});

describe('re-checks on every request', () => {
  it('SHARE v9w4-gm2x-6rvf: the owner losing share permission refuses access (403), regaining restores it', async () => {
    await updateUser(admin, fm, alice.id, { perm: { ...PERMS, share: false } });
    expect((await publicInfo(fm, docs.hash)).status).toBe(403);
    expect((await publicInfo(fm, file.hash)).status).toBe(403);
    await updateUser(admin, fm, alice.id, { perm: PERMS });
    expect((await publicInfo(fm, docs.hash)).status).toBe(200);
  });

  it('SHARE 68j5-4m99-w9w9: the owner losing download permission refuses access (403)', async () => {
    // The API refuses share without download, but an older or imported record may hold it.
    const db = await openDatabase(fm.dbFile);
    try {
      const users = new UsersRepo(db);
      const u = await users.mustGet(alice.id);
      await users.update({ ...u, perm: { ...u.perm, share: true, download: false } });
      expect((await publicInfo(fm, docs.hash)).status).toBe(403);
      expect((await publicInfo(fm, file.hash)).status).toBe(403);
      await users.update({ ...u, perm: PERMS });
    } finally {
      await db.close();
    }
    expect((await publicInfo(fm, docs.hash)).status).toBe(200);
  });

  it('SHARE j9jx-hp4c-ghhh: rules added after sharing hide paths inside the share, seen at their full scope path', async () => {
    const deny = (p: string) => ({ allow: false, path: p, regex: false, regexp: { raw: '' } });
    await updateUser(admin, fm, alice.id, { rules: [deny('/docs/secret')] });
    const info = (await (await publicInfo(fm, docs.hash)).json()) as Info;
    expect(info.items!.map((i) => i.name)).not.toContain('secret');
    expect((await publicInfo(fm, docs.hash, '/secret/s.txt')).status).toBe(403);
    expect((await publicInfo(fm, docs.hash, '/secret')).status).toBe(403);
    // A rule is not rebased onto the share: "/secret" names the scope's /secret, not /docs/secret.
    await updateUser(admin, fm, alice.id, { rules: [deny('/secret')] });
    expect((await publicInfo(fm, docs.hash, '/secret/s.txt')).status).toBe(200);
    // Regex rules see the full path too.
    await updateUser(admin, fm, alice.id, { rules: [{ allow: false, path: '', regex: true, regexp: { raw: '^/docs/sub/' } }] });
    expect((await publicInfo(fm, docs.hash, '/sub/deep.txt')).status).toBe(403);
    // A rule on the shared folder itself closes the whole link.
    await updateUser(admin, fm, alice.id, { rules: [deny('/docs')] });
    expect((await publicInfo(fm, docs.hash)).status).toBe(403);
    await updateUser(admin, fm, alice.id, { rules: [] });
    expect((await publicInfo(fm, docs.hash, '/secret/s.txt')).status).toBe(200);
  });

  it('SYML: a share of a symlinked folder sees rules on the real path and on the shared name', async () => {
    put('alice/real/secret/s.txt', 'real-secret');
    put('alice/real/open.txt', 'open');
    fs.symlinkSync('real', path.join(fm.root, 'alice/link-dir'));
    const s = await share(alice.client, '/link-dir');
    const deny = (p: string) => ({ allow: false, path: p, regex: false, regexp: { raw: '' } });
    await updateUser(admin, fm, alice.id, { rules: [deny('/real/secret')] });
    const info = (await (await publicInfo(fm, s.hash)).json()) as Info;
    expect(info.name).toBe('link-dir');
    expect(info.items!.map((i) => i.name)).toEqual(['open.txt']);
    let res = await publicInfo(fm, s.hash, '/secret/s.txt');
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('real-secret');
    await updateUser(admin, fm, alice.id, { rules: [deny('/link-dir/secret')] });
    res = await publicInfo(fm, s.hash, '/secret/s.txt');
    expect(res.status).toBe(403);
    // A rule on the shared name hides the entry from the listing too, not only from direct access.
    const aliased = (await (await publicInfo(fm, s.hash)).json()) as Info;
    expect(aliased.items!.map((i) => i.name)).toEqual(['open.txt']);
    await updateUser(admin, fm, alice.id, { rules: [] });
    expect((await publicInfo(fm, s.hash, '/secret/s.txt')).status).toBe(200);
  });

  it('global rules apply as well', async () => {
    const res = await admin.fetch('/api/settings', {
      method: 'PUT',
      json: { rules: [{ allow: false, path: '/docs/sub', regex: false, regexp: { raw: '' } }] },
    });
    expect(res.status).toBe(200);
    expect((await publicInfo(fm, docs.hash, '/sub/deep.txt')).status).toBe(403);
    await admin.fetch('/api/settings', { method: 'PUT', json: { rules: [] } });
    expect((await publicInfo(fm, docs.hash, '/sub/deep.txt')).status).toBe(200);
  });

  it('the owner hiding dotfiles hides them from the share', async () => {
    await updateUser(admin, fm, alice.id, { hideDotfiles: true });
    const info = (await (await publicInfo(fm, docs.hash)).json()) as Info;
    expect(info.items!.map((i) => i.name)).not.toContain('.hidden');
    expect((await publicInfo(fm, docs.hash, '/.hidden')).status).toBe(403);
    await updateUser(admin, fm, alice.id, { hideDotfiles: false });
  });

  it('a scope change re-roots the link: it never follows the path into another folder', async () => {
    put('elsewhere/docs/a.txt', 'other-alpha');
    const ghost = await createUser(admin, fm, 'ghost', { scope: '/alice', perm: PERMS });
    const s = await share(ghost.client, '/docs');
    await updateUser(admin, fm, ghost.id, { scope: '/elsewhere' });
    const res = await publicInfo(fm, s.hash, '/a.txt');
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('other-alpha');
  });
});

describe('SHARE pp88-jhwj-5qh5: a path recreated behind fm’s back is not re-exposed', () => {
  it('for a folder', async () => {
    put('alice/temp/x.txt', 'old');
    const s = await share(alice.client, '/temp');
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    fs.rmSync(path.join(fm.root, 'alice/temp'), { recursive: true });
    put('alice/temp/x.txt', 'new');
    expect((await publicInfo(fm, s.hash)).status).toBe(404);
    expect((await alice.client.json<ShareDto[]>('/api/shares')).some((x) => x.hash === s.hash)).toBe(false);
  });

  it('for a file', async () => {
    put('alice/temp2.txt', 'old');
    const s = await share(alice.client, '/temp2.txt');
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    fs.rmSync(path.join(fm.root, 'alice/temp2.txt'));
    put('alice/temp2.txt', 'new');
    const res = await publicInfo(fm, s.hash);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('new');
  });

  it('a missing path answers 404 without losing the link', async () => {
    put('alice/moving.txt', 'm');
    const s = await share(alice.client, '/moving.txt');
    fs.renameSync(path.join(fm.root, 'alice/moving.txt'), path.join(fm.root, 'alice/moved.txt'));
    expect((await publicInfo(fm, s.hash)).status).toBe(404);
    fs.renameSync(path.join(fm.root, 'alice/moved.txt'), path.join(fm.root, 'alice/moving.txt'));
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
  });
});
