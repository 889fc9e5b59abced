/**
 * Live listings (GET /api/events/{path}): answered like the listing before the stream starts;
 * fm's own changes and other processes' arrive as batches of entries; filtered like listings;
 * bursts become one reset; streams are bounded per user, released on disconnect, and ended
 * when the session is revoked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveChangeDto } from '../../src/api/live.ts';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openSse, type SseEvent, type SseReader } from '../helpers/sse.ts';

let fm: FmServer;
let admin: Client;
const open: SseReader[] = [];

/** The index's watcher reports other processes' changes; wait until it runs. */
async function indexReady(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const s = await admin.json<{ ready: boolean; watching: string }>('/api/search-status');
    if (s.ready && s.watching === 'watcher') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the index did not become ready');
}

async function stream(client: Client, folder: string): Promise<SseReader> {
  const res = await openSse(`${fm.url}/api/events${folder}`, { 'X-Auth': client.token });
  expect(res.status, res.text).toBe(200);
  open.push(res.reader!);
  await res.reader!.waitFor((e) => e.event === 'ready');
  return res.reader!;
}

const change = (e: SseEvent) => (e.event === 'change' ? (JSON.parse(e.data) as LiveChangeDto) : undefined);
const hasItem = (name: string) => (e: SseEvent) => change(e)?.items.some((i) => i.name === name) ?? false;
const hasRemoved = (name: string) => (e: SseEvent) => change(e)?.removed.includes(name) ?? false;
const allNames = (r: SseReader) => r.events.flatMap((e) => [...(change(e)?.items.map((i) => i.name) ?? []), ...(change(e)?.removed ?? [])]);

beforeAll(async () => {
  const home = tempDir();
  // The root holds fm's database: its files change on every write and must never be announced.
  fm = await startFm({ home, root: home });
  admin = await adminClient(fm);
  fs.mkdirSync(path.join(fm.root, 'docs'));
  await indexReady();
});

afterAll(async () => {
  for (const r of open) r.close();
  await fm?.stop();
});

describe('GET /api/events: answered like the listing', () => {
  it('401 without a session, 404 for a missing folder, 400 for a file, 403 for a denied folder', async () => {
    expect((await openSse(`${fm.url}/api/events/docs`, {})).status).toBe(401);
    expect((await openSse(`${fm.url}/api/events/nope`, { 'X-Auth': admin.token })).status).toBe(404);
    fs.writeFileSync(path.join(fm.root, 'file.txt'), 'x');
    expect((await openSse(`${fm.url}/api/events/file.txt`, { 'X-Auth': admin.token })).status).toBe(400);
    fs.mkdirSync(path.join(fm.root, 'closed'));
    const { client } = await createUser(admin, fm, 'denied', { rules: [{ regex: false, allow: false, path: '/closed', regexp: { raw: '' } }] });
    expect((await openSse(`${fm.url}/api/events/closed`, { 'X-Auth': client.token })).status).toBe(403);
  });

  it('is an event stream that starts with ready', async () => {
    const res = await fetch(`${fm.url}/api/events/docs`, { headers: { 'X-Auth': admin.token } });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toContain('no-cache');
    await res.body?.cancel();
  });
});

describe('GET /api/events: changes', () => {
  it("fm's own create, rename and delete arrive as entries and removed names", async () => {
    const r = await stream(admin, '/docs');
    expect((await admin.fetch('/api/resources/docs/new.txt', { method: 'POST', body: 'hello' })).status).toBe(200);
    const created = change(await r.waitFor(hasItem('new.txt')))!;
    expect(created.items.find((i) => i.name === 'new.txt')).toMatchObject({ path: '/docs/new.txt', size: 5, isDir: false, type: 'text' });
    const from = r.events.length;
    const renamed = await admin.fetch(`/api/resources/docs/new.txt?action=rename&destination=${encodeURIComponent('/docs/renamed.txt')}`, { method: 'PATCH' });
    expect(renamed.status).toBe(200);
    await r.waitFor(hasRemoved('new.txt'), 5000, from);
    await r.waitFor(hasItem('renamed.txt'), 5000, from);
    expect((await admin.fetch('/api/resources/docs/renamed.txt', { method: 'DELETE' })).status).toBe(204);
    await r.waitFor(hasRemoved('renamed.txt'), 5000, from);
  });

  it("another process's new, changed and deleted files arrive through the watcher", async () => {
    const r = await stream(admin, '/docs');
    const file = path.join(fm.root, 'docs', 'outside.bin');
    fs.writeFileSync(file, Buffer.alloc(10));
    await r.waitFor(hasItem('outside.bin'));
    const from = r.events.length;
    fs.writeFileSync(file, Buffer.alloc(20));
    await r.waitFor((e) => change(e)?.items.some((i) => i.name === 'outside.bin' && i.size === 20) ?? false, 5000, from);
    fs.rmSync(file);
    await r.waitFor(hasRemoved('outside.bin'), 5000, from);
  });

  it('a name that is not UTF-8, written by fm, is announced in its escaped form, as the listing names it', async () => {
    // Without the index's watcher: the announcement comes from fm's own write.
    const bare = await startFm({ args: ['--no-index'] });
    try {
      const client = await adminClient(bare);
      const res = await openSse(`${bare.url}/api/events/`, { 'X-Auth': client.token });
      open.push(res.reader!);
      expect((await client.fetch('/api/resources/b%EF%9F%BF.t', { method: 'POST', body: 'x' })).status).toBe(200);
      const item = change(await res.reader!.waitFor(hasItem('b\uf7ff.t')))!.items[0];
      expect(item.path).toBe('/b\uf7ff.t');
      expect(fs.existsSync(Buffer.concat([Buffer.from(path.join(bare.root, 'b')), Buffer.from([0xff, 0x2e, 0x74])]))).toBe(true);
    } finally {
      await bare.stop();
    }
  });

  it("another process's file with a name that is not UTF-8 is announced exactly, as the listing names it", async () => {
    const r = await stream(admin, '/docs');
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(fm.root, 'docs/')), Buffer.from([0x6e, 0xff, 0x2e, 0x74])]), 'x');
    const item = change(await r.waitFor(hasItem('n\uf7ff.t')))!.items.find((i) => i.name === 'n\uf7ff.t')!;
    expect(item.path).toBe('/docs/n\uf7ff.t');
    const listed = await admin.json<{ items: Array<{ name: string }> }>('/api/resources/docs');
    expect(listed.items.map((i) => i.name)).toContain('n\uf7ff.t');
  });

  it('a burst of changes becomes one reset, not thousands of entries', async () => {
    fs.mkdirSync(path.join(fm.root, 'burst'));
    const r = await stream(admin, '/burst');
    for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(fm.root, 'burst', `f${i}`), '');
    await r.waitFor((e) => e.event === 'reset');
    const entries = r.events.reduce((n, e) => n + (change(e)?.items.length ?? 0), 0);
    expect(entries).toBeLessThan(5000);
  });
});

describe('GET /api/events: filtered like listings', () => {
  it('rules, hidden dotfiles, fm’s own files and writes in progress are never announced', async () => {
    fs.mkdirSync(path.join(fm.root, 'dana'));
    const { client } = await createUser(admin, fm, 'dana', {
      scope: '/dana',
      hideDotfiles: true,
      rules: [{ regex: true, allow: false, path: '', regexp: { raw: '\\.log$' } }],
    });
    const r = await stream(client, '/');
    const rootStream = await stream(admin, '/');
    const dana = path.join(fm.root, 'dana');
    fs.writeFileSync(path.join(dana, '.secret'), 'x');
    fs.writeFileSync(path.join(dana, 'app.log'), 'x');
    fs.writeFileSync(path.join(dana, '.upload-123'), 'x');
    // A write to the database (its files are in this root), then the marker.
    await admin.fetch('/api/resources/dana/made-by-fm.txt', { method: 'POST', body: 'x' });
    fs.writeFileSync(path.join(dana, 'marker.txt'), 'x');
    await r.waitFor(hasItem('marker.txt'));
    await r.waitFor(hasItem('made-by-fm.txt'));
    expect(allNames(r)).not.toContain('.secret');
    expect(allNames(r)).not.toContain('app.log');
    expect(allNames(r).some((n) => n.startsWith('.upload-'))).toBe(false);
    fs.writeFileSync(path.join(fm.root, 'root-marker.txt'), 'x');
    await rootStream.waitFor(hasItem('root-marker.txt'));
    expect(allNames(rootStream).some((n) => n.startsWith('fm.db'))).toBe(false);
  });
});

describe('GET /api/events: connections', () => {
  it('at most 16 streams per user; a closed stream frees its place', async () => {
    const { client } = await createUser(admin, fm, 'eve', {});
    const first: SseReader[] = [];
    for (let i = 0; i < 16; i++) first.push(await stream(client, '/'));
    const refused = await openSse(`${fm.url}/api/events/`, { 'X-Auth': client.token });
    expect(refused.status).toBe(429);
    for (const r of first) r.close();
    // The server sees the disconnects a moment later: poll until all 16 places are free again.
    let reopened: SseReader[] = [];
    for (let attempt = 0; attempt < 200 && reopened.length < 16; attempt++) {
      const res = await openSse(`${fm.url}/api/events/`, { 'X-Auth': client.token });
      if (res.reader) {
        open.push(res.reader);
        reopened.push(res.reader);
      } else await new Promise((r) => setTimeout(r, 20));
    }
    expect(reopened).toHaveLength(16);
    for (const r of reopened) r.close();
    reopened = [];
  });

  it('an expired session ends the stream', async () => {
    const short = await startFm({ args: ['--token-expiration', '2s', '--no-index'] });
    try {
      const client = await adminClient(short);
      const res = await openSse(`${short.url}/api/events/`, { 'X-Auth': client.token });
      expect(res.status).toBe(200);
      open.push(res.reader!);
      const started = Date.now();
      await res.reader!.ended;
      // Expired after 2 s, noticed at the next heartbeat (every 5 s).
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await short.stop();
    }
  }, 20_000);

  it('sends heartbeats, and a revoked session ends the stream', async () => {
    const { client } = await createUser(admin, fm, 'fay', {});
    const r = await stream(client, '/');
    expect((await client.fetch('/api/logout', { method: 'POST' })).status).toBeLessThan(300);
    await r.ended;
    expect(r.comments).toBeGreaterThan(0);
  }, 20_000);
});
