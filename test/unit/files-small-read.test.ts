/** Reading batches of small files for archives: confinement, limits, offsets; in a worker and here. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
