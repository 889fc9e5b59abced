/**
 * Plain uploads, `POST /api/resources/{path}?override=` with the file as the body: folder
 * uploads (relative paths create folders), the same conflict rules as tus, streamed and atomic.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Client } from '../helpers/server.ts';
import { raw, sha256, startTusFm, testBytes, type TusFm } from './tus-helpers.ts';
const ALL = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

describe('plain uploads through POST /api/resources', () => {
  let t: TusFm;
  const onDisk = (p: string) => path.join(t.fm.root, p);
  const post = (client: Client, p: string, body: Buffer | string, override?: boolean) =>
    client.fetch(`/api/resources${p}${override === undefined ? '' : `?override=${override}`}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  beforeAll(async () => {
    t = await startTusFm();
  });
  afterAll(async () => {
    await t.close();
  });

  it('uploads a folder: several files with relative paths, creating the folders', async () => {
    const files: Record<string, string> = {
      '/album/cover.jpg': 'jpeg bytes',
      '/album/disc 1/01 intro.mp3': 'mp3 one',
      '/album/disc 1/02 théme.mp3': 'mp3 two',
      '/album/disc 2/deep/notes.txt': 'notes',
    };
    expect((await t.admin.fetch('/api/resources/album/', { method: 'POST' })).status).toBeLessThan(300);
    for (const [p, body] of Object.entries(files)) {
      const res = await post(t.admin, p.split('/').map(encodeURIComponent).join('/'), body, false);
      expect(res.status, `${p}: ${await res.clone().text()}`).toBeLessThan(300);
    }
    for (const [p, body] of Object.entries(files)) expect(fs.readFileSync(onDisk(p), 'utf8')).toBe(body);
    const listing = await t.admin.json<{ items: Array<{ name: string; isDir: boolean }> }>('/api/resources/album/');
    expect(listing.items.map((i) => [i.name, i.isDir])).toEqual([
      ['disc 1', true],
      ['disc 2', true],
      ['cover.jpg', false],
    ]);
  });

  it('creates empty folders of a folder upload with a trailing slash', async () => {
    expect((await t.admin.fetch('/api/resources/album/empty%20dir/', { method: 'POST' })).status).toBeLessThan(300);
    expect(fs.statSync(onDisk('album/empty dir')).isDirectory()).toBe(true);
  });

  it('409 for an existing file without override, and replaces it with override', async () => {
    fs.writeFileSync(onDisk('plain.txt'), 'old');
    expect((await post(t.admin, '/plain.txt', 'new', false)).status).toBe(409);
    expect((await post(t.admin, '/plain.txt', 'new')).status).toBe(409);
    expect(fs.readFileSync(onDisk('plain.txt'), 'utf8')).toBe('old');
    expect((await post(t.admin, '/plain.txt', 'new', true)).status).toBeLessThan(300);
    expect(fs.readFileSync(onDisk('plain.txt'), 'utf8')).toBe('new');
  });

  it('override without the modify permission is 403; without create, 403', async () => {
    const { client: noModify } = await createUser(t.admin, t.fm, 'plain-nomodify', { scope: '.', perm: { ...ALL, modify: false } });
    fs.writeFileSync(onDisk('guarded.txt'), 'keep');
    expect((await post(noModify, '/guarded.txt', 'x', true)).status).toBe(403);
    expect(fs.readFileSync(onDisk('guarded.txt'), 'utf8')).toBe('keep');
    const { client: noCreate } = await createUser(t.admin, t.fm, 'plain-nocreate', { scope: '.', perm: { ...ALL, create: false } });
    expect((await post(noCreate, '/nocreate.txt', 'x', false)).status).toBe(403);
    expect(fs.existsSync(onDisk('nocreate.txt'))).toBe(false);
  });

  it('rules and scope apply to the target', async () => {
    fs.mkdirSync(onDisk('plain-home'));
    const { client } = await createUser(t.admin, t.fm, 'plain-ruled', {
      scope: '/plain-home',
      perm: ALL,
      rules: [{ regex: false, allow: false, path: '/locked', regexp: { raw: '' } }],
    });
    expect((await post(client, '/locked/x.txt', 'x', false)).status).toBe(403);
    expect((await post(client, '/ok/x.txt', 'x', false)).status).toBeLessThan(300);
    expect(fs.readFileSync(onDisk('plain-home/ok/x.txt'), 'utf8')).toBe('x');
    const escaped = await raw(t.fm.url, 'POST', '/api/resources/%2e%2e/escape.txt', { 'X-Auth': client.token }, 'x');
    expect(escaped.status).toBe(403);
    expect(fs.existsSync(onDisk('escape.txt'))).toBe(false);
  });

  it('streams a large body to a byte-identical file', async () => {
    const data = testBytes(20 * 1024 * 1024, 9);
    expect((await post(t.admin, '/large.bin', data, false)).status).toBeLessThan(300);
    expect(sha256(fs.readFileSync(onDisk('large.bin')))).toBe(sha256(data));
  });

  it('an interrupted plain upload leaves no partial file and the old one intact', async () => {
    fs.writeFileSync(onDisk('atomic.bin'), 'original');
    const url = new URL(t.fm.url);
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/api/resources/atomic.bin?override=true',
      headers: { 'X-Auth': t.admin.token, 'Content-Length': String(10 * 1024 * 1024) },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(1024 * 1024, 1));
    // Cut the connection once the server is writing its temporary file, then wait until it is gone.
    const partials = () => fs.readdirSync(t.fm.root).filter((n) => n.startsWith('.fm-partial-'));
    await expect.poll(partials).toHaveLength(1);
    req.destroy();
    await expect.poll(partials).toEqual([]);
    expect(fs.readFileSync(onDisk('atomic.bin'), 'utf8')).toBe('original');
    const listing = await t.admin.json<{ items: Array<{ name: string }> }>('/api/resources/');
    expect(listing.items.filter((i) => i.name.includes('atomic'))).toHaveLength(1);
  });

  it('refuses a body over the instance maximum upload size with 413 and keeps nothing', async () => {
    expect((await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 100 } })).status).toBe(200);
    try {
      expect((await post(t.admin, '/too-big.bin', Buffer.alloc(101), false)).status).toBe(413);
      expect(fs.existsSync(onDisk('too-big.bin'))).toBe(false);
      expect((await post(t.admin, '/fits.bin', Buffer.alloc(100), false)).status).toBeLessThan(300);
    } finally {
      await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 0 } });
    }
  });
});
