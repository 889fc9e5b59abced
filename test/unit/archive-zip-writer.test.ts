/** The zip writer (services/files/archive/zip-writer.ts), checked with Info-ZIP's unzip and zipinfo. */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createParallelGzip } from '../../src/services/files/archive/parallel-gzip.ts';
import { packEntry, ZipWriter } from '../../src/services/files/archive/zip-writer.ts';
import { tempDir } from '../helpers/server.ts';

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const when = new Date(2024, 4, 6, 7, 8, 10);

/** Runs `build` against a writer and saves what it wrote as a file. */
async function writeZip(name: string, build: (w: ZipWriter) => Promise<void>): Promise<string> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (c: Buffer) => parts.push(c));
  const w = new ZipWriter(out);
  await build(w);
  await w.finish();
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(parts));
  return file;
}

describe('packEntry', () => {
  it('deflates what shrinks, stores what does not and what is already compressed, with the CRC of the original', async () => {
    const text = Buffer.from('abc'.repeat(1000));
    const noise = crypto.randomBytes(5000);
    const deflated = await packEntry(text, false);
    expect(deflated).toMatchObject({ method: 8, size: 3000 });
    expect(deflated.data.length).toBeLessThan(100);
    expect(await packEntry(noise, false)).toMatchObject({ method: 0, size: 5000, data: noise });
    expect(await packEntry(text, true)).toMatchObject({ method: 0, size: 3000, data: text });
    expect(deflated.crc).toBe((await packEntry(text, true)).crc);
  });
});

describe('ZipWriter', () => {
  it('writes folders, packed and streamed entries that unzip tests, lists with their modes and times, and extracts intact', async () => {
    const noise = crypto.randomBytes(300_000);
    const text = Buffer.from('line\n'.repeat(80_000));
    const file = await writeZip('mixed.zip', async (w) => {
      await w.addPacked({ name: 'top/', date: when, mode: 0o750, folder: true }, await packEntry(Buffer.alloc(0), true));
      await w.addPacked({ name: 'top/small.txt', date: when, mode: 0o600 }, await packEntry(Buffer.from('small '.repeat(50)), false));
      await w.addStream(
        { name: 'top/noise.bin', date: when, mode: 0o644 },
        Readable.from([noise.subarray(0, 1000), noise.subarray(1000)]),
        noise.length,
        false,
      );
      await w.addStream({ name: 'top/text.txt', date: when, mode: 0o644 }, Readable.from([text]), text.length, true);
    });
    expect(execFileSync('unzip', ['-t', file], { encoding: 'utf8' })).toContain('No errors detected');
    const listing = execFileSync('zipinfo', [file], { encoding: 'utf8' });
    expect(listing).toMatch(/drwxr-x---\s.*\s24-May-06 07:08 top\//);
    expect(listing).toMatch(/-rw-------\s.*defN 24-May-06 07:08 top\/small\.txt/);
    expect(listing).toMatch(/-rw-r--r--\s.*defN.* top\/noise\.bin/);
    expect(listing).toMatch(/-rw-r--r--\s.*stor.* top\/text\.txt/);
    const into = path.join(dir, 'mixed');
    execFileSync('unzip', ['-q', file, '-d', into]);
    expect(fs.readFileSync(path.join(into, 'top/noise.bin')).equals(noise)).toBe(true);
    expect(fs.readFileSync(path.join(into, 'top/text.txt')).equals(text)).toBe(true);
  });

  it('more than 65,535 entries get the zip64 end records', async () => {
    const one = await packEntry(Buffer.from('x'), false);
    const count = 70_000;
    const file = await writeZip('many.zip', async (w) => {
      for (let i = 0; i < count; i++) await w.addPacked({ name: `f${i}`, date: when, mode: 0o644 }, one);
    });
    const zip = fs.readFileSync(file);
    expect(zip.indexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBeGreaterThan(0);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 16 << 20 })
      .trim()
      .split('\n');
    expect(names.length).toBe(count);
    expect(names.at(-1)).toBe(`f${count - 1}`);
  });

  it('a source that fails mid-entry rejects the entry', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('read failed'));
      },
    });
    const w = new ZipWriter(new PassThrough().resume());
    await expect(w.addStream({ name: 'bad', date: when, mode: 0o644 }, failing, 10, false)).rejects.toThrow('read failed');
  });

  it('deflated in parallel pieces, a source that fails after some pieces rejects the entry', async () => {
    let sent = 0;
    const failing = new Readable({
      read() {
        // Three 1 MiB pieces' worth, then a failure while they may still be in the workers.
        if (sent < 3) this.push(Buffer.alloc(1 << 20, sent++));
        else this.destroy(new Error('read failed'));
      },
    });
    const w = new ZipWriter(new PassThrough().resume(), () => createParallelGzip({ raw: true }));
    await expect(w.addStream({ name: 'bad', date: when, mode: 0o644 }, failing, 4 << 20, false)).rejects.toThrow('read failed');
  });
});
