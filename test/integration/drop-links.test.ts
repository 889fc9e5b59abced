/**
 * SHARE: upload-only (drop) links through real HTTP. Creation (folders only, limits validated),
 * what the public side shows (name and limits, never items: no listing, download, preview or
 * WebDAV), plain uploads (never overwriting, folder drops confined, traversal refused with
 * nothing written), the limits (checked before any byte, reserved so two uploads at once cannot
 * both pass), the password, expiry and deletion, and the re-check of the owner's current access.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { patchSettings, seenByServer, withDb } from '../helpers/http-raw.ts';
import { PERMS, publicInfo, share, updateUser, type ShareDto } from './share-helpers.ts';
import { type DropFm, postDrop, startDropFm, tree } from './drop-helpers.ts';

let t: DropFm;

beforeAll(async () => {
  t = await startDropFm();
});

afterAll(async () => {
  await t.close();
});

/** The inbox as alice left it, plus `extra`. */
const inboxWith = (extra: Record<string, string> = {}) => ({ 'kept.txt': 'already there', ...extra });

/** Empties the inbox but for kept.txt. */
function resetInbox() {
  fs.rmSync(t.inbox, { recursive: true, force: true });
  fs.mkdirSync(t.inbox);
  fs.writeFileSync(path.join(t.inbox, 'kept.txt'), 'already there');
}

async function sharesOf(): Promise<ShareDto[]> {
  return t.alice.client.json<ShareDto[]>('/api/shares');
}

describe('SHARE drop: creating an upload-only link', () => {
  it('makes a link of a folder with its limits and empty counters', async () => {
    const s = await t.drop({ maxFiles: 3, maxFileSize: 1000, maxBytes: 2000 });
    expect(s).toMatchObject({
      path: '/inbox',
      uploadOnly: true,
      limits: { maxFiles: 3, maxFileSize: 1000, maxBytes: 2000 },
      received: { files: 0, bytes: 0, last: 0 },
    });
    const listed = (await sharesOf()).find((x) => x.hash === s.hash);
    expect(listed).toMatchObject({ uploadOnly: true, received: { files: 0 } });
  });

  it('refuses a file, limits without uploadOnly, and limits that are not positive whole numbers (400)', async () => {
    fs.writeFileSync(path.join(t.inbox, '..', 'note.txt'), 'x');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['/note.txt', { uploadOnly: true }, /only a folder/],
      ['/inbox', { maxFiles: 2 }, /upload-only/],
      ['/inbox', { uploadOnly: true, maxFiles: 0 }, /maxFiles/],
      ['/inbox', { uploadOnly: true, maxBytes: -1 }, /maxBytes/],
      ['/inbox', { uploadOnly: true, maxFileSize: 1.5 }, /maxFileSize/],
      ['/inbox', { uploadOnly: true, maxFileSize: '10' }, /maxFileSize/],
      ['/inbox', { uploadOnly: 'yes' }, /uploadOnly/],
    ];
    for (const [p, body, msg] of cases) {
      const res = await t.alice.client.fetch(`/api/share${p}`, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.text()).toMatch(msg);
    }
  });

  it('refuses a drop link to an owner who may not create files (403)', async () => {
    await updateUser(t.admin, t.fm, t.alice.id, { perm: { ...PERMS, create: false } });
    try {
      const res = await t.alice.client.fetch('/api/share/inbox', { method: 'POST', json: { uploadOnly: true } });
      expect(res.status).toBe(403);
    } finally {
      await updateUser(t.admin, t.fm, t.alice.id, { perm: PERMS });
    }
  });
});

describe('SHARE drop: visitors never see what is in the folder', () => {
  it('answers the name and limits, never the items; a subpath is 403 whether it exists or not', async () => {
    const s = await t.drop({ maxFiles: 5 });
    const res = await publicInfo(t.fm, s.hash);
    expect(res.status).toBe(200);
    const info = (await res.json()) as Record<string, unknown>;
    expect(info).toEqual({ uploadOnly: true, name: 'inbox', limits: { maxFiles: 5 }, left: { maxFiles: 5 } });
    for (const sub of ['/kept.txt', '/missing.txt']) {
      const r = await publicInfo(t.fm, s.hash, sub);
      expect(r.status).toBe(403);
      expect(r.headers.get('X-Fm-Error')).toBe('upload_only');
    }
  });

  it('refuses downloads, archives and previews (403 upload_only)', async () => {
    const s = await t.drop();
    for (const p of [
      `/api/public/dl/${s.hash}/kept.txt`,
      `/api/public/dl/${s.hash}/`,
      `/api/public/dl/${s.hash}/?files=kept.txt&algo=zip`,
      `/api/public/preview/thumb/${s.hash}/kept.txt`,
    ]) {
      const res = await fetch(`${t.fm.url}${p}`);
      expect(res.status, p).toBe(403);
      expect(res.headers.get('X-Fm-Error'), p).toBe('upload_only');
      expect(await res.text()).not.toContain('already there');
    }
  });

  it('refuses the WebDAV view of the link (403 upload_only; writes stay 405)', async () => {
    const s = await t.drop();
    for (const [method, p] of [
      ['PROPFIND', '/'],
      ['GET', '/kept.txt'],
      ['OPTIONS', '/'],
    ] as const) {
      const res = await fetch(`${t.fm.url}/dav-share/${s.hash}${p}`, { method, headers: method === 'PROPFIND' ? { Depth: '1' } : {} });
      expect(res.status, method).toBe(403);
      expect(res.headers.get('X-Fm-Error')).toBe('upload_only');
    }
    expect((await fetch(`${t.fm.url}/dav-share/${s.hash}/x.txt`, { method: 'PUT', body: 'x' })).status).toBe(405);
    expect(tree(t.inbox)).toEqual(inboxWith());
  });

  it('refuses an upload to a link that is not upload-only (403 not_upload_only)', async () => {
    const s = await share(t.alice.client, '/inbox');
    const res = await postDrop(t.fm, s.hash, 'x.txt', 'x');
    expect(res.status).toBe(403);
    expect(res.headers['x-fm-error']).toBe('not_upload_only');
    expect(tree(t.inbox)).toEqual(inboxWith());
  });
});

describe('SHARE drop: plain uploads', () => {
  it('writes the file, never over an existing name, and counts it', async () => {
    resetInbox();
    const s = await t.drop();
    const before = Math.floor(Date.now() / 1000);
    for (const body of ['first', 'second', 'third']) expect((await postDrop(t.fm, s.hash, 'kept.txt', body)).status).toBe(201);
    expect((await postDrop(t.fm, s.hash, 'report.tar.gz', 'gz')).status).toBe(201);
    expect(tree(t.inbox)).toEqual(inboxWith({ 'kept (1).txt': 'first', 'kept (2).txt': 'second', 'kept (3).txt': 'third', 'report.tar.gz': 'gz' }));
    const listed = (await sharesOf()).find((x) => x.hash === s.hash)!;
    expect(listed.received).toMatchObject({ files: 4, bytes: 5 + 6 + 5 + 2 });
    expect(listed.received!.last).toBeGreaterThanOrEqual(before);
  });

  it('takes a name that is not UTF-8 (its bytes escaped as fm spells them) and an empty file', async () => {
    resetInbox();
    const s = await t.drop();
    // U+F7E9 is fm's spelling of the byte 0xE9 (src/services/files/disk/names.ts).
    for (let i = 0; i < 2; i++) expect((await postDrop(t.fm, s.hash, 'caf%EF%9F%A9.txt', 'latin-1')).status).toBe(201);
    expect((await postDrop(t.fm, s.hash, 'empty.txt', '')).status).toBe(201);
    const names = fs.readdirSync(t.inbox, { encoding: 'buffer' }).map((b) => b.toString('latin1'));
    expect(names.sort()).toEqual(['caf\xe9 (1).txt', 'caf\xe9.txt', 'empty.txt', 'kept.txt']);
    expect(fs.readFileSync(path.join(t.inbox, 'empty.txt'), 'utf8')).toBe('');
  });

  it('fm shares ls shows what a drop link received', async () => {
    resetInbox();
    const s = await t.drop();
    expect((await postDrop(t.fm, s.hash, 'cli.txt', 'cli')).status).toBe(201);
    const r = await runFm(['--database', t.fm.dbFile, 'shares', 'ls']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^HASH\s+USER\s+EXPIRES\s+PASSWORD\s+PATH\s+UPLOAD-ONLY/);
    expect(r.stdout.split('\n').find((l) => l.startsWith(s.hash))).toMatch(/\/inbox\s+1 file\(s\), last \d{4}-\d\d-\d\dT/);
  });

  it('creates the folders of a folder drop inside the shared folder', async () => {
    resetInbox();
    const s = await t.drop();
    expect((await postDrop(t.fm, s.hash, 'photos/2024/a%20b.jpg', 'jpg')).status).toBe(201);
    expect((await postDrop(t.fm, s.hash, 'photos/2024/a%20b.jpg', 'again')).status).toBe(201);
    expect(tree(t.inbox)).toEqual(inboxWith({ 'photos/2024/a b.jpg': 'jpg', 'photos/2024/a b (1).jpg': 'again' }));
  });

  it('PATH: refuses traversal, absolute, empty, "." and ".." names and separators inside a name (400), writing nothing', async () => {
    resetInbox();
    const s = await t.drop();
    const names = [
      '..',
      '%2e%2e',
      '../escape.txt',
      'a/../../escape.txt',
      'a/%2e%2e/%2e%2e/escape.txt',
      '/escape.txt',
      '%2Fescape.txt',
      'a%2F..%2F..%2Fescape.txt',
      'a//b.txt',
      './a.txt',
      'a/.',
      '',
      'a%5C..%5Cescape.txt',
      'a%00b',
      '%E0%A4%A',
    ];
    for (const name of names) {
      const res = await postDrop(t.fm, s.hash, name, 'evil');
      expect(res.status, name).toBe(400);
    }
    expect(tree(t.inbox)).toEqual(inboxWith());
    expect(fs.existsSync(path.join(t.fm.root, 'alice/escape.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(t.fm.root, 'alice/private.txt'), 'utf8')).toBe('private');
  });

  it('refuses attempts to overwrite or to use other methods (400, 405), changing nothing', async () => {
    resetInbox();
    const s = await t.drop();
    const override = await postDrop(t.fm, s.hash, 'kept.txt?override=true', 'evil');
    expect(override.status).toBe(400);
    expect(override.text).toMatch(/never replaces/);
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await fetch(`${t.fm.url}/api/public/upload/${s.hash}/kept.txt`, { method, body: method === 'DELETE' ? undefined : 'evil' });
      expect(res.status, method).toBe(405);
    }
    const tus = await fetch(`${t.fm.url}/api/public/tus/${s.hash}/kept.txt?override=true`, {
      method: 'POST',
      headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '4' },
    });
    expect(tus.status).toBe(400);
    expect(tree(t.inbox)).toEqual(inboxWith());
  });

  it('needs a declared length (411), writing nothing', async () => {
    resetInbox();
    const s = await t.drop();
    const chunked = await fetch(`${t.fm.url}/api/public/upload/${s.hash}/c.txt`, {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('chunked'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(411);
    expect(tree(t.inbox)).toEqual(inboxWith());
  });
});

describe('SHARE drop: limits', () => {
  it('refuses a declared length over the largest-file or total limit before any byte (413), leaving nothing', async () => {
    resetInbox();
    const s = await t.drop({ maxFileSize: 10, maxBytes: 15 });
    const big = await postDrop(t.fm, s.hash, 'big.bin', 'x'.repeat(11));
    expect(big.status).toBe(413);
    expect(big.headers['x-fm-error']).toBe('drop_file_size');
    expect((await postDrop(t.fm, s.hash, 'a.bin', 'x'.repeat(10))).status).toBe(201);
    const over = await postDrop(t.fm, s.hash, 'b.bin', 'x'.repeat(6));
    expect(over.status).toBe(413);
    expect(over.headers['x-fm-error']).toBe('drop_bytes');
    expect((await postDrop(t.fm, s.hash, 'c.bin', 'x'.repeat(5))).status).toBe(201);
    expect(Object.keys(tree(t.inbox)).sort()).toEqual(['a.bin', 'c.bin', 'kept.txt']);
    expect((await (await publicInfo(t.fm, s.hash)).json()).left).toEqual({ maxFileSize: 10, maxBytes: 0 });
  });

  it("holds the instance's upload limit too, by POST and by tus (413 before any byte)", async () => {
    resetInbox();
    const s = await t.drop();
    const uploadLimit = async () => (await t.admin.json<{ maxUploadSize: number }>('/api/settings')).maxUploadSize;
    await patchSettings(t.fm.dbFile, (x) => ({ ...x, maxUploadSize: 5 }));
    await seenByServer(async () => (await uploadLimit()) === 5, 'the upload limit');
    try {
      expect((await postDrop(t.fm, s.hash, 'big.txt', 'x'.repeat(6))).status).toBe(413);
      const tus = await fetch(`${t.fm.url}/api/public/tus/${s.hash}/big.txt`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '6' } });
      expect(tus.status).toBe(413);
      expect((await postDrop(t.fm, s.hash, 'small.txt', 'x'.repeat(5))).status).toBe(201);
    } finally {
      await patchSettings(t.fm.dbFile, (x) => ({ ...x, maxUploadSize: 0 }));
      await seenByServer(async () => (await uploadLimit()) === 0, 'the upload limit lifted');
    }
    expect(tree(t.inbox)).toEqual(inboxWith({ 'small.txt': 'xxxxx' }));
    expect((await sharesOf()).find((x) => x.hash === s.hash)!.received).toMatchObject({ files: 1, bytes: 5 });
  });

  it('lets only one of two uploads at once pass a limit of one file', async () => {
    resetInbox();
    const s = await t.drop({ maxFiles: 1 });
    const results = await Promise.all([postDrop(t.fm, s.hash, 'one.txt', 'one'), postDrop(t.fm, s.hash, 'two.txt', 'two')]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 413]);
    expect(results.find((r) => r.status === 413)!.headers['x-fm-error']).toBe('drop_files');
    expect(Object.keys(tree(t.inbox))).toHaveLength(2);
    expect((await postDrop(t.fm, s.hash, 'three.txt', 'three')).status).toBe(413);
  });
});

describe('SHARE drop: passwords, expiry, deletion and the owner re-check', () => {
  it('asks for the password (401), then takes it or the token', async () => {
    resetInbox();
    const s = await t.drop({ password: 'drop-secret' });
    expect((await postDrop(t.fm, s.hash, 'a.txt', 'a')).status).toBe(401);
    expect((await postDrop(t.fm, s.hash, 'a.txt', 'a', { 'X-SHARE-PASSWORD': 'wrong' })).status).toBe(401);
    expect((await postDrop(t.fm, s.hash, 'a.txt', 'a', { 'X-SHARE-PASSWORD': 'drop-secret' })).status).toBe(201);
    const info = (await (await publicInfo(t.fm, s.hash, '', { 'X-SHARE-PASSWORD': 'drop-secret' })).json()) as { token: string; name: string };
    expect(info.name).toBe('inbox');
    expect((await postDrop(t.fm, s.hash, `b.txt?token=${info.token}`, 'b')).status).toBe(201);
    expect(tree(t.inbox)).toEqual(inboxWith({ 'a.txt': 'a', 'b.txt': 'b' }));
  });

  it('answers 404 for an expired or deleted link, writing nothing', async () => {
    resetInbox();
    const expired = await t.drop();
    await withDb(t.fm.dbFile, async ({ shares }) => {
      const rec = (await shares.get(expired.hash))!;
      await shares.update({ ...rec, expire: Math.floor(Date.now() / 1000) - 10 });
    });
    await seenByServer(async () => (await publicInfo(t.fm, expired.hash)).status === 404, 'the link expired');
    expect((await postDrop(t.fm, expired.hash, 'a.txt', 'a')).status).toBe(404);
    const deleted = await t.drop();
    expect((await t.alice.client.fetch(`/api/share/${deleted.hash}`, { method: 'DELETE' })).status).toBe(200);
    expect((await postDrop(t.fm, deleted.hash, 'a.txt', 'a')).status).toBe(404);
    expect((await publicInfo(t.fm, deleted.hash)).status).toBe(404);
    expect(tree(t.inbox)).toEqual(inboxWith());
  });

  it("re-checks the owner's current create permission and rules at every upload (403)", async () => {
    resetInbox();
    const s = await t.drop();
    await updateUser(t.admin, t.fm, t.alice.id, { perm: { ...PERMS, create: false } });
    try {
      expect((await postDrop(t.fm, s.hash, 'a.txt', 'a')).status).toBe(403);
    } finally {
      await updateUser(t.admin, t.fm, t.alice.id, { perm: PERMS });
    }
    await updateUser(t.admin, t.fm, t.alice.id, { rules: [{ allow: false, path: '/inbox/blocked', regex: false, regexp: { raw: '' } }] });
    try {
      expect((await postDrop(t.fm, s.hash, 'blocked/a.txt', 'a')).status).toBe(403);
      expect((await postDrop(t.fm, s.hash, 'open.txt', 'ok')).status).toBe(201);
    } finally {
      await updateUser(t.admin, t.fm, t.alice.id, { rules: [] });
    }
    expect(tree(t.inbox)).toEqual(inboxWith({ 'open.txt': 'ok' }));
  });
});
