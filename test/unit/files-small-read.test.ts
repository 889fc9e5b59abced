/** Reading batches of small files for archives: confinement, limits, offsets, a zip's deflate; in a worker and here. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSmallFilesInWorker } from '../../src/services/files/disk/listing-worker.ts';
import {
  SMALL_LEFT_OUT,
  SMALL_NOT_READ,
  SMALL_READ,
  readSmallBatch,
  type SmallReadJob,
  type SmallReadResult,
} from '../../src/services/files/disk/small-files.ts';

let tmp: string;
let root: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-small-')));
  root = path.join(tmp, 'root');
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha');
  fs.writeFileSync(path.join(root, 'empty'), '');
  fs.writeFileSync(path.join(root, 'sub', 'b.txt'), 'bravo!');
  fs.writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(5000, 7));
  fs.writeFileSync(path.join(root, 'words.txt'), 'the same words again and again, '.repeat(100));
  fs.writeFileSync(path.join(root, 'noise.bin'), crypto.randomBytes(3000));
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(tmp, 'outside', 'secret.txt'), 'secret');
  // A folder inside the root that is a link to a folder outside it.
  fs.symlinkSync(path.join(tmp, 'outside'), path.join(root, 'escape'));
  fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link-to-a'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const job = (names: string[], over: Partial<SmallReadJob> = {}): SmallReadJob => ({
  paths: names.map((n) => path.join(root, n)),
  root,
  maxSize: 4096,
  maxBytes: 1 << 20,
  ...over,
});

const text = (r: SmallReadResult, i: number) => Buffer.from(r.data.buffer, r.data.byteOffset + r.off[i], r.num[i * 3 + 2]).toString();

describe('readSmallBatch', () => {
  it('reads files in order with their modes and times, each at its offset', () => {
    const r = readSmallBatch({ fs, Buffer }, job(['a.txt', 'empty', 'sub/b.txt']));
    expect([...r.status]).toEqual([SMALL_READ, SMALL_READ, SMALL_READ]);
    expect([text(r, 0), text(r, 1), text(r, 2)]).toEqual(['alpha', '', 'bravo!']);
    const st = fs.statSync(path.join(root, 'sub', 'b.txt'));
    expect(r.num[2 * 3]).toBe(st.mode);
    expect(r.num[2 * 3 + 1]).toBe(st.mtimeMs);
  });

  it('PATH/SYML: leaves out what resolves outside the root, links as the last step, folders and missing files', () => {
    const r = readSmallBatch({ fs, Buffer }, job(['escape/secret.txt', 'link-to-a', 'sub', 'missing', 'a.txt']));
    expect([...r.status]).toEqual([SMALL_LEFT_OUT, SMALL_LEFT_OUT, SMALL_LEFT_OUT, SMALL_LEFT_OUT, SMALL_READ]);
    expect(text(r, 4)).toBe('alpha');
    expect(Buffer.from(r.data).toString()).not.toContain('secret');
  });

  it('does not read files above the size limit, nor past the byte budget', () => {
    const big = readSmallBatch({ fs, Buffer }, job(['big.bin', 'a.txt']));
    expect([...big.status]).toEqual([SMALL_NOT_READ, SMALL_READ]);
    const budget = readSmallBatch({ fs, Buffer }, job(['a.txt', 'sub/b.txt', 'empty'], { maxBytes: 5 }));
    expect([...budget.status]).toEqual([SMALL_READ, SMALL_NOT_READ, SMALL_NOT_READ]);
  });

  it("deflates for a zip: each file's CRC, deflated bytes when smaller, as read when not or when stored; the budget counts bytes read", () => {
    const names = ['words.txt', 'noise.bin', 'words.txt', 'empty', 'a.txt'];
    const store = Uint8Array.from([0, 0, 1, 0, 0]);
    const r = readSmallBatch({ fs, Buffer, zlib }, job(names, { deflate: { level: 6, store } }));
    expect([...r.status]).toEqual(names.map(() => SMALL_READ));
    expect([...r.method!]).toEqual([8, 0, 0, 0, 0]);
    names.forEach((n, i) => {
      const original = fs.readFileSync(path.join(root, n));
      const bytes = Buffer.from(r.data.buffer, r.data.byteOffset + r.off[i], r.off[i + 1] - r.off[i]);
      expect(r.crc![i], n).toBe(zlib.crc32(original));
      expect(r.num[i * 3 + 2], n).toBe(original.length);
      expect((r.method![i] === 8 ? zlib.inflateRawSync(bytes) : bytes).equals(original), n).toBe(true);
    });
    expect(r.off[1] - r.off[0]).toBeLessThan(3200);
    // 3,200 bytes read, a few dozen written: the next file is past a 3,000-byte budget all the same.
    const budget = readSmallBatch({ fs, Buffer, zlib }, job(['words.txt', 'a.txt'], { maxBytes: 3000, deflate: { level: 6, store: new Uint8Array(2) } }));
    expect([...budget.status]).toEqual([SMALL_READ, SMALL_NOT_READ]);
  });

  it('gives the same answer in a worker thread, deflated too', async () => {
    const j = job(['words.txt', 'noise.bin', 'a.txt'], { deflate: { level: 6, store: new Uint8Array(3) } });
    const here = readSmallBatch({ fs, Buffer, zlib }, j);
    const there = await readSmallFilesInWorker(j);
    expect(there).toBeDefined();
    for (const key of ['status', 'num', 'off', 'crc', 'method'] as const) expect([...there![key]!], key).toEqual([...here[key]!]);
    expect(Buffer.from(there!.data).equals(Buffer.from(here.data))).toBe(true);
  });

  it('gives the same answer in a worker thread', async () => {
    const j = job(['a.txt', 'escape/secret.txt', 'big.bin', 'sub/b.txt', 'empty']);
    const here = readSmallBatch({ fs, Buffer }, j);
    const there = await readSmallFilesInWorker(j);
    expect(there).toBeDefined();
    expect([...there!.status]).toEqual([...here.status]);
    expect([...there!.num]).toEqual([...here.num]);
    expect(Buffer.from(there!.data).equals(Buffer.from(here.data))).toBe(true);
    expect([...there!.off]).toEqual([...here.off]);
  });
});
