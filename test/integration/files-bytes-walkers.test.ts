/**
 * Names are bytes (docs/decisions.md, "Trust: names are bytes"): files whose names are not
 * UTF-8, made on disk directly, are listed (small and large folders, recursively), opened,
 * downloaded, archived, previewed and found by both searches, under fm's escaped string form.
 * And links into a folder the rules deny stay out of the recursive listing and both searches.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { decompressArchive } from '../helpers/archives.ts';
import { startMediaFm, type MediaServer } from './media-helpers.ts';

/** "café.txt" in Latin-1: 0xE9 alone is not UTF-8. fm calls it `caf\uF7E9.txt`. */
const CAFE = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]);
const CAFE_ESC = 'caf\uf7e9.txt';
/** A folder named "d\x80ir" (a lone continuation byte). */
const DIR = Buffer.from([0x64, 0x80, 0x69, 0x72]);
const DIR_ESC = 'd\uf780ir';
const inDir = (name: string) => Buffer.from(name, 'latin1');
const SMALL = 'n\xe9e.bin';
const SMALL_ESC = 'n\uf7e9e.bin';
const BIG = 'big\xe9.bin';
const BIG_ESC = 'big\uf7e9.bin';
const PIC = 'pic\xe9.png';
const PIC_ESC = 'pic\uf7e9.png';
const SUB = 'sub\xe9.srt';
const SUB_ESC = 'sub\uf7e9.srt';
/** Size of the file behind the rule-denied folder: must never show through a link. */
const SECRET_SIZE = 12_345;

const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** An absolute path made of a string root and byte segments. */
function bytePath(root: string, ...segments: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(root), ...segments.flatMap((s) => [Buffer.from('/'), s])]);
}

interface Tree {
  small: Buffer;
  big: Buffer;
  pic: Buffer;
}

/** The same tree in every server's root. */
async function fill(root: string): Promise<Tree> {
  const small = crypto.randomBytes(1000);
  const big = crypto.randomBytes(300_000); // above the archives' read-ahead size: streamed
  const pic = await sharp({ create: { width: 64, height: 32, channels: 3, background: { r: 200, g: 10, b: 10 } } })
    .png()
    .toBuffer();
  fs.writeFileSync(bytePath(root, CAFE), 'hello bytes');
  fs.mkdirSync(bytePath(root, DIR));
  fs.writeFileSync(bytePath(root, DIR, inDir(SMALL)), small);
  fs.writeFileSync(bytePath(root, DIR, inDir(BIG)), big);
  fs.writeFileSync(bytePath(root, DIR, inDir(PIC)), pic);
  fs.writeFileSync(bytePath(root, DIR, inDir(SUB)), '1\n00:00:01,000 --> 00:00:02,000\nbonjour\n');
  // Large enough for the worker-thread listing (4096 entries and more).
  fs.mkdirSync(path.join(root, 'many'));
  for (let i = 0; i < 4100; i++) fs.writeFileSync(path.join(root, 'many', `f${i}.txt`), '');
  fs.writeFileSync(bytePath(root, Buffer.from('many'), Buffer.from('x\xe9.txt', 'latin1')), 'four');
  // Links into a folder the rules deny (for the user "ruled").
  fs.mkdirSync(path.join(root, 'secret'));
  fs.writeFileSync(path.join(root, 'secret', 'peekable.txt'), Buffer.alloc(SECRET_SIZE, 1));
  fs.symlinkSync(path.join(root, 'secret', 'peekable.txt'), path.join(root, 'peek-file'));
  fs.symlinkSync(path.join(root, 'secret'), path.join(root, 'peek-dir'));
  return { small, big, pic };
}

let indexed: FmServer;
let indexedOutside: string;
let walk: MediaServer;
let admin: Client;
let walkAdmin: Client;
let tree: Tree;

interface Item {
  name: string;
  path: string;
  size: number;
  isDir: boolean;
  modified: string;
}

async function searchPaths(client: Client, dir: string, query: string): Promise<string[]> {
  const res = await client.fetch(`/api/search${dir}?query=${encodeURIComponent(query)}`);
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { path: string }).path)
    .sort();
}

async function waitIndexReady(client: Client): Promise<void> {
  await expect.poll(async () => (await client.json<{ ready: boolean }>('/api/search-status')).ready, { timeout: 20_000 }).toBe(true);
}

beforeAll(async () => {
  // The index server's tree exists before it starts, so its first scan sees every name.
  indexedOutside = tempDir('fm-bytes-');
  const root = path.join(indexedOutside, 'root');
  fs.mkdirSync(root);
  tree = await fill(root);
  [indexed, walk] = await Promise.all([startFm({ root }), startMediaFm(['--no-index'])]);
  await fill(walk.root);
  [admin, walkAdmin] = await Promise.all([adminClient(indexed), adminClient(walk)]);
});

afterAll(async () => {
  await Promise.all([indexed?.stop(), walk?.stop()]);
  fs.rmSync(indexedOutside, { recursive: true, force: true });
});

describe('listings', () => {
  it('list names that are not UTF-8, escaped, in a folder whose own name is not UTF-8 either', async () => {
    const root = await admin.json<{ items: Item[] }>('/api/resources/');
    expect(root.items.find((i) => i.name === CAFE_ESC)).toMatchObject({ path: `/${CAFE_ESC}`, size: 11, isDir: false });
    expect(root.items.find((i) => i.name === DIR_ESC)).toMatchObject({ path: `/${DIR_ESC}`, isDir: true });
    const dir = await admin.json<{ name: string; items: Item[] }>(`/api/resources/${enc(DIR_ESC)}/`);
    expect(dir.name).toBe(DIR_ESC);
    expect(dir.items.map((i) => i.path).sort()).toEqual([BIG_ESC, PIC_ESC, SMALL_ESC, SUB_ESC].map((n) => `/${DIR_ESC}/${n}`).sort());
    expect(dir.items.find((i) => i.name === BIG_ESC)?.size).toBe(300_000);
  });

  it('list them in large folders too (the worker threads get the bytes)', async () => {
    const many = await admin.json<{ items: Item[]; numFiles: number }>('/api/resources/many/');
    expect(many.numFiles).toBe(4101);
    expect(many.items.find((i) => i.name === 'x\uf7e9.txt')).toMatchObject({ path: '/many/x\uf7e9.txt', size: 4 });
  });

  it('list them in the recursive listing', async () => {
    const all = await admin.json<Item[]>('/api/resources/recursive/');
    const paths = all.map((e) => e.path);
    expect(paths).toContain(`/${CAFE_ESC}`);
    expect(paths).toContain(`/${DIR_ESC}/${SMALL_ESC}`);
    expect(all.find((e) => e.path === `/${DIR_ESC}/${BIG_ESC}`)).toMatchObject({ name: BIG_ESC, size: 300_000, isDir: false });
  });
});

describe('single files', () => {
  it('open: info with content, and a checksum', async () => {
    const info = await admin.json<{ name: string; content: string; type: string }>(`/api/resources/${enc(CAFE_ESC)}`);
    expect(info).toMatchObject({ name: CAFE_ESC, content: 'hello bytes', type: 'text' });
    const sum = await admin.json<{ checksums: { md5: string } }>(`/api/resources/${enc(CAFE_ESC)}?checksum=md5`);
    expect(sum.checksums.md5).toBe(crypto.createHash('md5').update('hello bytes').digest('hex'));
  });

  it('download: exact bytes, RFC 5987 filename* with the real bytes and an ASCII fallback', async () => {
    const res = await admin.fetch(`/api/raw/${enc(DIR_ESC)}/${enc(BIG_ESC)}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(tree.big)).toBe(true);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="big_.bin"; filename*=UTF-8''big%E9.bin`);
    const inline = await admin.fetch(`/api/raw/${enc(CAFE_ESC)}?inline=true`);
    expect(inline.headers.get('content-disposition')).toBe(`inline; filename="caf_.txt"; filename*=UTF-8''caf%E9.txt`);
    expect(await inline.text()).toBe('hello bytes');
  });

  it('preview: a thumbnail of an image whose name is not UTF-8, cached like any other', async () => {
    for (let round = 0; round < 2; round++) {
      const res = await admin.fetch(`/api/preview/thumb/${enc(DIR_ESC)}/${enc(PIC_ESC)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([256, 256]);
    }
    const cached = bytePath(path.join(indexed.home, 'cache', 'previews'), DIR, inDir(PIC));
    expect(fs.readdirSync(cached).some((n) => n.endsWith('.webp'))).toBe(true);
  });

  it('subtitles and usage', async () => {
    const vtt = await admin.fetch(`/api/subtitle/${enc(DIR_ESC)}/${enc(SUB_ESC)}`);
    expect(vtt.status).toBe(200);
    expect(await vtt.text()).toContain('bonjour');
    const usage = await admin.json<{ total: number }>(`/api/usage/${enc(DIR_ESC)}`);
    expect(usage.total).toBeGreaterThan(0);
  });
});

// The archives and searches of the index server see only the tree `fill` made: other fixtures go to the walk server.
describe('archives', () => {
  for (const algo of ['zip', 'targz', 'tar']) {
    it(`${algo}: every entry under its exact bytes, extracted by the system's ${algo === 'zip' ? 'unzip' : 'tar'}`, async () => {
      const res = await admin.fetch(`/api/raw/${enc(DIR_ESC)}?algo=${algo}`);
      expect(res.status).toBe(200);
      const work = fs.mkdtempSync(path.join(indexed.home, `arch-${algo}-`));
      const file = path.join(work, 'archive');
      const kind = await decompressArchive(algo, Buffer.from(await res.arrayBuffer()), file);
      const into = path.join(work, 'out');
      fs.mkdirSync(into);
      if (kind === 'zip') execFileSync('unzip', ['-q', file, '-d', into]);
      else execFileSync('tar', ['-xf', file, '-C', into]);
      const names = fs.readdirSync(into, { encoding: 'buffer' }).map((b) => b.toString('latin1'));
      expect(names.sort()).toEqual([BIG, PIC, SMALL, SUB].sort());
      expect(fs.readFileSync(bytePath(into, inDir(SMALL))).equals(tree.small)).toBe(true);
      expect(fs.readFileSync(bytePath(into, inDir(BIG))).equals(tree.big)).toBe(true);
      expect(fs.readFileSync(bytePath(into, inDir(PIC))).equals(tree.pic)).toBe(true);
    });
  }

  it('zip: the UTF-8 flag (bit 11) is off for byte names and on for other non-ASCII names', async () => {
    const latin1 = Buffer.from('bl\xe9.txt', 'latin1');
    fs.mkdirSync(path.join(walk.root, 'mixed'));
    fs.writeFileSync(bytePath(walk.root, Buffer.from('mixed'), latin1), '1');
    fs.writeFileSync(path.join(walk.root, 'mixed', 'blé.txt'), '2');
    const zip = Buffer.from(await (await walkAdmin.fetch('/api/raw/mixed?algo=zip')).arrayBuffer());
    const flags = new Map<string, number>();
    // Central directory records: signature, then flags at +8 and the name at +46.
    for (let at = zip.indexOf('PK\x01\x02'); at >= 0; at = zip.indexOf('PK\x01\x02', at + 4)) {
      const nameLength = zip.readUInt16LE(at + 28);
      flags.set(zip.subarray(at + 46, at + 46 + nameLength).toString('hex'), zip.readUInt16LE(at + 8) & 0x800);
    }
    expect(flags.get(latin1.toString('hex'))).toBe(0);
    expect(flags.get(Buffer.from('blé.txt').toString('hex'))).toBe(0x800);
  });

  it('an entry that cannot be archived is named in a last entry, never dropped silently', async () => {
    fs.mkdirSync(path.join(walk.root, 'odd'));
    fs.writeFileSync(path.join(walk.root, 'odd', 'fine.txt'), 'fine');
    execFileSync('mkfifo', [path.join(walk.root, 'odd', 'pipe')]);
    fs.symlinkSync(path.join(walk.root, 'odd', 'gone'), path.join(walk.root, 'odd', 'dangling'));
    const res = await walkAdmin.fetch('/api/raw/odd?algo=tar');
    expect(res.status).toBe(200);
    const work = fs.mkdtempSync(path.join(walk.home, 'odd-'));
    fs.writeFileSync(path.join(work, 'a.tar'), Buffer.from(await res.arrayBuffer()));
    execFileSync('tar', ['-xf', path.join(work, 'a.tar'), '-C', work]);
    expect(fs.readFileSync(path.join(work, 'fine.txt'), 'utf8')).toBe('fine');
    const notice = fs.readFileSync(path.join(work, 'fm-left-out.txt'), 'utf8');
    expect(notice).toContain('dangling: a link whose target does not exist');
    expect(notice).toContain('pipe: not a regular file');
    await expect.poll(() => walk.output()).toMatch(/archive of \/odd: 2 entries left out/);
  });
});

describe('search', () => {
  it('walk (no index): finds names that are not UTF-8 by their readable part and by the escaped byte', async () => {
    expect(await searchPaths(walkAdmin, '/', 'caf')).toEqual([CAFE_ESC]);
    expect(await searchPaths(walkAdmin, `/${enc(DIR_ESC)}`, '\uf7e9')).toEqual([BIG_ESC, PIC_ESC, SMALL_ESC, SUB_ESC].sort());
    expect(await searchPaths(walkAdmin, '/', 'type:image pic')).toEqual([`${DIR_ESC}/${PIC_ESC}`]);
  });

  it('index: finds the same, and sees byte names created and removed outside fm (lossy watcher paths)', async () => {
    await waitIndexReady(admin);
    expect(await searchPaths(admin, '/', 'caf')).toEqual([CAFE_ESC]);
    expect(await searchPaths(admin, `/${enc(DIR_ESC)}`, '\uf7e9')).toEqual([BIG_ESC, PIC_ESC, SMALL_ESC, SUB_ESC].sort());
    const late = bytePath(indexed.root, DIR, Buffer.from('late\xe9.txt', 'latin1'));
    fs.writeFileSync(late, 'late');
    await expect.poll(() => searchPaths(admin, '/', 'late')).toEqual([`${DIR_ESC}/late\uf7e9.txt`]);
    fs.rmSync(late);
    await expect.poll(() => searchPaths(admin, '/', 'late')).toEqual([]);
  });
});

describe('links into a folder the rules deny', () => {
  let ruled: Client;
  let ruledWalk: Client;
  beforeAll(async () => {
    const rules = [{ path: '/secret', allow: false }];
    [{ client: ruled }, { client: ruledWalk }] = await Promise.all([
      createUser(admin, indexed, 'ruled', { rules }),
      createUser(walkAdmin, walk, 'ruled', { rules }),
    ]);
  });

  it('are left out of the recursive listing, and their target’s size never shows', async () => {
    const all = await ruled.json<Item[]>('/api/resources/recursive/');
    const paths = all.map((e) => e.path);
    expect(paths).not.toContain('/peek-file');
    expect(paths).not.toContain('/peek-dir');
    expect(paths.some((p) => p.startsWith('/secret'))).toBe(false);
    expect(all.some((e) => e.size === SECRET_SIZE)).toBe(false);
    expect(paths).toContain(`/${CAFE_ESC}`);
    // Without the rule they are there, with the target's size.
    const adminAll = await admin.json<Item[]>('/api/resources/recursive/');
    expect(adminAll.find((e) => e.path === '/peek-file')?.size).toBe(SECRET_SIZE);
  });

  it('are left out of the walk search', async () => {
    expect(await searchPaths(ruledWalk, '/', 'peek')).toEqual([]);
    expect(await searchPaths(walkAdmin, '/', 'peek')).toEqual(['peek-dir', 'peek-file', 'secret/peekable.txt']);
  });

  it('are left out of the indexed search', async () => {
    await waitIndexReady(admin);
    expect(await searchPaths(ruled, '/', 'peek')).toEqual([]);
    expect(await searchPaths(admin, '/', 'peek')).toEqual(['peek-dir', 'peek-file', 'secret/peekable.txt']);
  });
});
