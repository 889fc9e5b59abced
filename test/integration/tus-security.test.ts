import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, tempDir, type Client } from '../helpers/server.ts';
import { Tus, raw, stagedFiles, startTusFm, type TusFm } from './tus-helpers.ts';

const ALL = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

describe('tus security', () => {
  let t: TusFm;
  let outside: string;
  const user = async (name: string, data: Record<string, unknown> = {}): Promise<Client> =>
    (await createUser(t.admin, t.fm, name, { scope: '.', perm: ALL, ...data })).client;
  const onDisk = (p: string) => path.join(t.fm.root, p);

  beforeAll(async () => {
    t = await startTusFm();
    outside = tempDir('fm-tus-outside-');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  describe('AUTHZ: permissions on the upload protocol', () => {
    it('creation needs the create permission', async () => {
      const c = new Tus(await user('nocreate', { perm: { ...ALL, create: false } }), t.fm.url);
      expect((await c.create('/nocreate.txt', 1)).status).toBe(403);
      expect(fs.existsSync(onDisk('nocreate.txt'))).toBe(false);
    });

    it('override of an existing file needs the modify permission; a new file does not', async () => {
      const c = new Tus(await user('nomodify', { perm: { ...ALL, modify: false } }), t.fm.url);
      fs.writeFileSync(onDisk('keep.txt'), 'keep');
      expect((await c.create('/keep.txt', 3, { override: true })).status).toBe(403);
      expect(fs.readFileSync(onDisk('keep.txt'), 'utf8')).toBe('keep');
      expect((await c.upload('/fresh-by-nomodify.txt', Buffer.from('new'), 3, true)).status).toBe(204);
    });

    it('a modify permission revoked during an override upload stops the replacement', async () => {
      const { client, id } = await createUser(t.admin, t.fm, 'revoked', { scope: '.', perm: ALL });
      const c = new Tus(client, t.fm.url);
      fs.writeFileSync(onDisk('revoke.txt'), 'original');
      expect((await c.create('/revoke.txt', 4, { override: true })).status).toBe(201);
      expect((await c.patch('/revoke.txt', 0, 'ne')).status).toBe(204);
      const put = await t.admin.fetch(`/api/users/${id}`, {
        method: 'PUT',
        json: { what: 'user', which: ['perm'], current_password: t.fm.adminPassword, data: { id, perm: { ...ALL, modify: false } } },
      });
      expect(put.status).toBe(200);
      expect((await c.patch('/revoke.txt', 2, 'w!')).status).toBe(403);
      expect(fs.readFileSync(onDisk('revoke.txt'), 'utf8')).toBe('original');
    });

    it('79pf-vx4x-7jmm: DELETE of an upload needs the delete permission, and keeps the data when refused', async () => {
      const c = new Tus(await user('nodelete', { perm: { ...ALL, delete: false } }), t.fm.url);
      expect((await c.create('/nodelete.bin', 10)).status).toBe(201);
      expect((await c.patch('/nodelete.bin', 0, '12345')).status).toBe(204);
      expect((await c.remove('/nodelete.bin')).status).toBe(403);
      expect((await c.head('/nodelete.bin')).headers['upload-offset']).toBe('5');
    });

    it("IDOR: another user cannot see, write, delete or take over someone's upload", async () => {
      const alice = new Tus(await user('alice-idor'), t.fm.url);
      const bob = new Tus(await user('bob-idor'), t.fm.url);
      expect((await alice.create('/idor.bin', 6)).status).toBe(201);
      expect((await alice.patch('/idor.bin', 0, 'abc')).status).toBe(204);
      expect((await bob.head('/idor.bin')).status).toBe(404);
      expect((await bob.patch('/idor.bin', 3, 'xyz')).status).toBe(404);
      expect((await bob.remove('/idor.bin')).status).toBe(404);
      expect((await bob.create('/idor.bin', 6)).status).toBe(423);
      expect((await alice.patch('/idor.bin', 3, 'def')).status).toBe(204);
      expect(fs.readFileSync(onDisk('idor.bin'), 'utf8')).toBe('abcdef');
    });
  });

  describe('rules and scope on the target', () => {
    it('a path rule refuses uploads below it, at segment boundaries only', async () => {
      const c = new Tus(await user('ruled', { rules: [{ regex: false, allow: false, path: '/private', regexp: { raw: '' } }] }), t.fm.url);
      expect((await c.create('/private/x.txt', 1)).status).toBe(403);
      expect((await c.create('/private', 1)).status).toBe(403);
      expect((await c.create('/privateer/x.txt', 1)).status).toBe(201);
    });

    it('a regex rule refuses matching names, for creation and for every later request', async () => {
      const c = new Tus(await user('regexed'), t.fm.url);
      expect((await c.create('/later.exe', 2)).status).toBe(201);
      const put = await t.admin.fetch('/api/settings', {
        method: 'PUT',
        json: { rules: [{ regex: true, allow: false, path: '', regexp: { raw: '\\.exe$' } }] },
      });
      expect(put.status).toBe(200);
      try {
        expect((await c.create('/tool.exe', 1)).status).toBe(403);
        expect((await c.patch('/later.exe', 0, 'MZ')).status).toBe(403);
        expect(fs.existsSync(onDisk('later.exe'))).toBe(false);
      } finally {
        await t.admin.fetch('/api/settings', { method: 'PUT', json: { rules: [] } });
      }
    });

    it('hidden dotfiles cannot be uploaded by a user who hides them', async () => {
      const c = new Tus(await user('nodots', { hideDotfiles: true }), t.fm.url);
      expect((await c.create('/.hidden', 1)).status).toBe(403);
    });

    it('uploads land inside the user scope and cannot leave it', async () => {
      fs.mkdirSync(onDisk('scoped-home'));
      const c = new Tus(await user('scoped', { scope: '/scoped-home' }), t.fm.url);
      expect((await c.upload('/in-scope.txt', Buffer.from('mine'))).status).toBe(204);
      expect(fs.readFileSync(onDisk('scoped-home/in-scope.txt'), 'utf8')).toBe('mine');
      expect((await c.create('/../escaped.txt', 1)).status).toBe(403);
      expect(fs.existsSync(onDisk('escaped.txt'))).toBe(false);
    });
  });

  describe('PATH: traversal in the tus path (raw requests)', () => {
    const attempts = [
      '/../escape.txt',
      '/%2e%2e/escape.txt',
      '/%2E%2E/escape.txt',
      '/..%2fescape.txt',
      '/..%2Fescape.txt',
      '/%2e%2e%2fescape.txt',
      '/a/../../escape.txt',
      '/a/%2e%2e/%2e%2e/escape.txt',
      '/..%5cescape.txt',
      '/..\\escape.txt',
      '//..//escape.txt',
      '/./../escape.txt',
      '/.%2e/escape.txt',
    ];
    for (const attempt of attempts) {
      it(`refuses ${attempt} on every method`, async () => {
        const headers = { 'X-Auth': t.admin.token, 'Tus-Resumable': '1.0.0' };
        const post = await raw(t.fm.url, 'POST', `/api/tus${attempt}`, { ...headers, 'Upload-Length': '1' });
        expect(post.status).toBe(403);
        for (const method of ['HEAD', 'PATCH', 'DELETE']) {
          const res = await raw(
            t.fm.url,
            method,
            `/api/tus${attempt}`,
            { ...headers, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
            method === 'PATCH' ? 'x' : undefined,
          );
          expect(res.status, method).toBe(403);
        }
        expect(fs.existsSync(path.join(path.dirname(t.fm.root), 'escape.txt'))).toBe(false);
      });
    }

    it('refuses NUL bytes and invalid UTF-8 with 400', async () => {
      const headers = { 'X-Auth': t.admin.token, 'Upload-Length': '1' };
      expect((await raw(t.fm.url, 'POST', '/api/tus/nul%00.txt', headers)).status).toBe(400);
      expect((await raw(t.fm.url, 'POST', '/api/tus/bad%ff.txt', headers)).status).toBe(400);
      expect((await raw(t.fm.url, 'POST', '/api/tus/bad%e2%28.txt', headers)).status).toBe(400);
    });

    it('decodes once: a double-encoded dot-dot is a literal name inside the root', async () => {
      const res = await raw(t.fm.url, 'POST', '/api/tus/%252e%252e/literal.txt', { 'X-Auth': t.admin.token, 'Upload-Length': '0' });
      expect(res.status).toBe(201);
      expect(fs.existsSync(onDisk('%2e%2e/literal.txt'))).toBe(true);
    });
  });

  describe('SYML: symbolic links on the way to the target', () => {
    it('refuses a folder link leading outside the scope', async () => {
      fs.symlinkSync(outside, onDisk('out-link'));
      expect((await new Tus(t.admin, t.fm.url).create('/out-link/x.txt', 1)).status).toBe(403);
      expect(fs.readdirSync(outside)).toEqual([]);
    });

    it('refuses to write through a file link or a dangling link', async () => {
      fs.writeFileSync(path.join(outside, 'victim.txt'), 'safe');
      fs.symlinkSync(path.join(outside, 'victim.txt'), onDisk('file-link.txt'));
      fs.symlinkSync(path.join(outside, 'not-there.txt'), onDisk('dangling.txt'));
      const c = new Tus(t.admin, t.fm.url);
      expect((await c.create('/file-link.txt', 3, { override: true })).status).toBe(403);
      expect((await c.create('/dangling.txt', 3, { override: true })).status).toBe(403);
      expect(fs.readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('safe');
      expect(fs.existsSync(path.join(outside, 'not-there.txt'))).toBe(false);
    });

    it('a parent folder swapped for a link during the upload does not redirect the file', async () => {
      const c = new Tus(t.admin, t.fm.url);
      fs.mkdirSync(onDisk('swap'));
      expect((await c.create('/swap/x.txt', 4)).status).toBe(201);
      expect((await c.patch('/swap/x.txt', 0, 'ab')).status).toBe(204);
      fs.rmdirSync(onDisk('swap'));
      fs.symlinkSync(outside, onDisk('swap'));
      expect((await c.patch('/swap/x.txt', 2, 'cd')).status).toBe(403);
      expect(fs.existsSync(path.join(outside, 'x.txt'))).toBe(false);
    });
  });

  describe('DOS: lengths', () => {
    it('ffx7-75gc-jg7c: a negative Upload-Length is refused before anything is staged or created', async () => {
      const before = stagedFiles(t.staging);
      const res = await new Tus(t.admin, t.fm.url).create('/negative.bin', -1);
      expect(res.status).toBe(400);
      expect(stagedFiles(t.staging)).toEqual(before);
      expect(fs.existsSync(onDisk('negative.bin'))).toBe(false);
      expect((await new Tus(t.admin, t.fm.url).head('/negative.bin')).status).toBe(404);
    });

    it('an absurd Upload-Length is refused', async () => {
      expect((await new Tus(t.admin, t.fm.url).create('/huge.bin', '99999999999999999999')).status).toBe(413);
    });
  });

  describe('staging inside the root (the data folder is inside it)', () => {
    let inner: TusFm;
    let root: string;
    beforeAll(async () => {
      root = tempDir('fm-tus-inner-');
      inner = await startTusFm({ root, home: path.join(root, 'fm-data') });
    });
    afterAll(async () => {
      await inner.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('keeps partial uploads in a hidden, protected .fm-uploads that no listing, search or request reaches', async () => {
      const c = new Tus(inner.admin, inner.fm.url);
      expect((await c.create('/pending.bin', 10)).status).toBe(201);
      expect((await c.patch('/pending.bin', 0, '12345')).status).toBe(204);
      const staged = fs.readdirSync(path.join(root, '.fm-uploads'));
      expect(staged.some((n) => n.endsWith('.part'))).toBe(true);
      const part = staged.find((n) => n.endsWith('.part'))!;

      const listing = await inner.admin.json<{ items: Array<{ name: string }> }>('/api/resources/');
      expect(listing.items.map((i) => i.name)).not.toContain('.fm-uploads');
      expect(listing.items.map((i) => i.name)).not.toContain('pending.bin');
      expect((await inner.admin.fetch('/api/resources/.fm-uploads')).status).toBe(404);
      expect((await inner.admin.fetch(`/api/resources/.fm-uploads/${part}`)).status).toBeGreaterThanOrEqual(403);
      const headers = { 'X-Auth': inner.admin.token, 'Upload-Length': '1' };
      expect((await raw(inner.fm.url, 'POST', `/api/tus/.fm-uploads/${part}`, { ...headers, 'Upload-Length': '5' })).status).toBeGreaterThanOrEqual(403);
      expect((await raw(inner.fm.url, 'POST', '/api/tus/.fm-uploads', headers)).status).toBeGreaterThanOrEqual(403);
      expect((await raw(inner.fm.url, 'POST', '/api/tus/fm-data/fm.db', { ...headers, 'Upload-Length': '1' })).status).toBeGreaterThanOrEqual(403);
      const search = async (query: string) => {
        const res = await inner.admin.fetch(`/api/search/?query=${encodeURIComponent(query)}`);
        expect(res.status).toBe(200);
        return (await res.text()).split('\n').filter((l) => l.trim());
      };
      expect(await search('part')).toEqual([]);
      expect(await search('fm-uploads')).toEqual([]);
      expect(await search(part.slice(0, 12))).toEqual([]);
      expect(await search('pending')).toEqual([]);
      expect((await c.patch('/pending.bin', 5, '67890')).status).toBe(204);
      expect((await search('pending')).map((l) => JSON.parse(l).path)).toEqual(['pending.bin']);
      expect(fs.readFileSync(path.join(root, 'pending.bin'), 'utf8')).toBe('1234567890');
      expect(fs.readdirSync(path.join(root, '.fm-uploads'))).toEqual([]);
    });
  });
});
