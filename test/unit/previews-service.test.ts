import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gate, type Access } from '../../src/services/files/gate.ts';
import { FileEvents } from '../../src/services/events.ts';
import { PreviewService, previewPlan } from '../../src/services/previews.ts';
import { Limiter } from '../../src/services/limiter.ts';
import { silentLogger } from '../../src/services/context.ts';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { PayloadTooLargeError } from '../../src/errors.ts';
import { bombPng } from '../integration/media-helpers.ts';
import { PROJECT_ROOT } from '../helpers/server.ts';

let home: string;
let root: string;
let cacheDir: string;
let gate: Gate;
let access: Access;
let events: FileEvents;
let previews: PreviewService;

const jpeg = (w: number, h: number, color = 'red') =>
  sharp({ create: { width: w, height: h, channels: 3, background: color } })
    .jpeg()
    .toBuffer();
const resolve = (v: string) => gate.resolve(access, v, 'download');
const cacheFiles = () => (fs.existsSync(cacheDir) ? (fs.readdirSync(cacheDir, { recursive: true }) as string[]).sort() : []);

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-previews-'));
  fs.mkdirSync(path.join(home, 'root'));
  root = fs.realpathSync(path.join(home, 'root'));
  cacheDir = path.join(home, 'data', 'cache', 'previews');
  gate = new Gate(root, [path.join(home, 'data')]);
  const user = { ...UserDataSchema.parse({ username: 'u', scope: '/', perm: { admin: true } }), sessionEpoch: 0, updatedAt: 0 };
  access = await gate.access(user, SettingsSchema.parse({}));
  events = new FileEvents(silentLogger);
  previews = new PreviewService({ root, cacheDir, concurrency: 2, maxPixels: 50_000_000, log: silentLogger });
  previews.listen(events);
  fs.mkdirSync(path.join(root, 'album'));
  fs.writeFileSync(path.join(root, 'album/a.jpg'), await jpeg(640, 480));
  fs.writeFileSync(path.join(root, 'album/b.jpg'), await jpeg(640, 480));
});

afterAll(async () => {
  await previews.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('preview plans', () => {
  it('converts JPEG, PNG, WebP, TIFF, AVIF with sharp and HEIC with heic-decode; serves GIF, SVG, BMP and RAW as they are', () => {
    for (const n of ['a.jpg', 'a.JPEG', 'a.png', 'a.webp', 'a.tiff', 'a.avif']) expect(previewPlan(n)).toBe('sharp');
    for (const n of ['a.heic', 'a.HEIF']) expect(previewPlan(n)).toBe('heic');
    for (const n of ['a.gif', 'a.svg', 'a.bmp', 'a.ico', 'a.dng', 'a.nef']) expect(previewPlan(n)).toBe('raw');
    for (const n of ['a.txt', 'a.mp4', 'a.pdf', 'noext']) expect(previewPlan(n)).toBeUndefined();
  });
});

describe('the preview service', () => {
  it('converts once, then answers from the disk cache mirroring the file path', async () => {
    const first = await previews.preview(await resolve('/album/a.jpg'), 'thumb');
    expect(first.kind).toBe('buffer');
    const files = cacheFiles().filter((f) => f.endsWith('.webp'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^album\/a\.jpg\/thumb-v1-.+\.webp$/);
    const second = await previews.preview(await resolve('/album/a.jpg'), 'thumb');
    expect(second.kind).toBe('file');
    if (second.kind !== 'file' || first.kind !== 'buffer') return;
    expect(fs.readFileSync(second.file).equals(first.data)).toBe(true);
    const meta = await sharp(first.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 256, 256]);
  });

  it('shares one conversion between simultaneous requests for the same preview', async () => {
    const t = await resolve('/album/b.jpg');
    const [x, y] = await Promise.all([previews.preview(t, 'big'), previews.preview(t, 'big')]);
    expect(x).toBe(y);
  });

  it('makes a new preview after the file changes and drops the old one', async () => {
    await previews.preview(await resolve('/album/b.jpg'), 'thumb');
    const before = cacheFiles().filter((f) => f.startsWith('album/b.jpg/thumb-'));
    fs.writeFileSync(path.join(root, 'album/b.jpg'), await jpeg(300, 300, 'blue'));
    fs.utimesSync(path.join(root, 'album/b.jpg'), new Date(), new Date(Date.now() + 5000));
    const fresh = await previews.preview(await resolve('/album/b.jpg'), 'thumb');
    expect(fresh.kind).toBe('buffer');
    const after = cacheFiles().filter((f) => f.startsWith('album/b.jpg/thumb-'));
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    const { data } = await sharp((fresh as { data: Buffer }).data)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(data[2]).toBeGreaterThan(200); // blue now
  });

  it('drops cached previews on removed, moved and written events, folders included', async () => {
    await previews.preview(await resolve('/album/a.jpg'), 'thumb');
    await previews.preview(await resolve('/album/b.jpg'), 'thumb');
    await events.emit('written', { abs: path.join(root, 'album/a.jpg'), isDir: false });
    expect(fs.existsSync(path.join(cacheDir, 'album/a.jpg'))).toBe(false);
    expect(fs.existsSync(path.join(cacheDir, 'album/b.jpg'))).toBe(true);
    await events.emit('moved', { fromAbs: path.join(root, 'album/b.jpg'), toAbs: path.join(root, 'album/c.jpg'), isDir: false });
    expect(fs.existsSync(path.join(cacheDir, 'album/b.jpg'))).toBe(false);
    await previews.preview(await resolve('/album/a.jpg'), 'big');
    await events.emit('removed', { abs: path.join(root, 'album'), isDir: true });
    expect(fs.existsSync(path.join(cacheDir, 'album'))).toBe(false);
  });

  it('ignores events outside the root and never removes the cache folder itself', async () => {
    await previews.preview(await resolve('/album/a.jpg'), 'thumb');
    await events.emit('removed', { abs: root, isDir: true });
    await events.emit('removed', { abs: path.join(home, 'elsewhere'), isDir: true });
    await events.emit('removed', { abs: path.join(root, '..'), isDir: true });
    expect(cacheFiles().length).toBeGreaterThan(0);
  });

  it('refuses an image over the pixel limit from its header, without decoding it', async () => {
    fs.writeFileSync(path.join(root, 'bomb.png'), bombPng(100_000, 100_000));
    await expect(previews.preview(await resolve('/bomb.png'), 'thumb')).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('decodes HEIC in a worker, and falls back to sharp for an AV1-coded .heif', async () => {
    fs.copyFileSync(path.join(PROJECT_ROOT, 'test/fixtures/media/red-blue-64x48.heic'), path.join(root, 'photo.heic'));
    const heic = await previews.preview(await resolve('/photo.heic'), 'big');
    expect(heic.kind).toBe('buffer');
    const meta = await sharp((heic as { data: Buffer }).data).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
    await sharp({ create: { width: 40, height: 30, channels: 3, background: 'red' } })
      .avif()
      .toFile(path.join(root, 'av1.heif'));
    const av1 = await previews.preview(await resolve('/av1.heif'), 'big');
    expect(av1.kind).toBe('buffer');
  });

  it('answers raw for an image it cannot decode, and remembers not to try again', async () => {
    fs.writeFileSync(path.join(root, 'broken.jpg'), 'this is not a jpeg');
    expect(await previews.preview(await resolve('/broken.jpg'), 'thumb')).toEqual({ kind: 'raw' });
    expect(cacheFiles().some((f) => /^broken\.jpg\/thumb-.*\.failed$/.test(f))).toBe(true);
    expect(await previews.preview(await resolve('/broken.jpg'), 'thumb')).toEqual({ kind: 'raw' });
  });

  it('drops a queued conversion when its only client leaves, without ever running it', async () => {
    const limiter = new Limiter(1);
    const single = new PreviewService({ root, cacheDir, limiter, log: silentLogger });
    let release!: () => void;
    const busy = limiter.run(() => new Promise<void>((r) => (release = r))); // holds the only slot
    fs.writeFileSync(path.join(root, 'queued.jpg'), await jpeg(64, 64));
    const client = new AbortController();
    const queued = single.preview(await resolve('/queued.jpg'), 'thumb', client.signal);
    while (limiter.waiting === 0) await new Promise((r) => setTimeout(r, 5));
    client.abort(new Error('client gone'));
    await expect(queued).rejects.toThrow('client gone');
    expect(limiter.waiting).toBe(0);
    release();
    await busy;
    expect(limiter.active).toBe(0);
    expect(fs.existsSync(path.join(cacheDir, 'queued.jpg'))).toBe(false);
    await single.close();
  });

  it('keeps a shared conversion going while another client still waits for it', async () => {
    const limiter = new Limiter(1);
    const single = new PreviewService({ root, cacheDir, limiter, log: silentLogger });
    let release!: () => void;
    const busy = limiter.run(() => new Promise<void>((r) => (release = r)));
    fs.writeFileSync(path.join(root, 'shared.jpg'), await jpeg(64, 64));
    const t = await resolve('/shared.jpg');
    const leaving = new AbortController();
    const first = single.preview(t, 'thumb', leaving.signal);
    const second = single.preview(t, 'thumb', new AbortController().signal);
    while (limiter.waiting === 0) await new Promise((r) => setTimeout(r, 5));
    leaving.abort(new Error('gone'));
    release();
    await busy;
    expect((await second).kind).toBe('buffer');
    expect((await first).kind).toBe('buffer');
    await single.close();
  });
});
