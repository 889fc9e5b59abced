/** fm's tar writer (services/files/archive/tar-writer.ts), read back by the system's tar. */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decodeName } from '../../src/services/files/disk/names.ts';
import { TarWriter, ustarName } from '../../src/services/files/archive/tar-writer.ts';

const date = new Date('2024-05-06T07:08:09Z');

async function archive(write: (w: TarWriter) => Promise<void>): Promise<Buffer> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (b: Buffer) => parts.push(b));
  const ended = new Promise((resolve) => out.on('end', resolve));
  const w = new TarWriter(out);
  await write(w);
  await w.finish();
  await ended;
  return Buffer.concat(parts);
}

describe('TarWriter', () => {
  it('writes names whole, cut into prefix and name, or in a pax record (long segments, bytes that are not UTF-8), as tar reads them', async () => {
    const split = `${'a'.repeat(60)}/${'b'.repeat(60)}.txt`;
    const longSegment = `deep/${'long-name-'.repeat(20)}.txt`;
    const bytes = decodeName(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74])); // "caf\xe9.txt"
    const files: Array<[string, Buffer]> = [
      ['short.txt', Buffer.from('short')],
      [split, crypto.randomBytes(700)],
      [longSegment, Buffer.alloc(0)],
      [bytes, Buffer.from('latin-1 name')],
      ['日本語.txt', Buffer.from('unicode')],
    ];
    const tar = await archive(async (w) => {
      await w.addBytes({ name: 'deep/', date, mode: 0o750, folder: true }, Buffer.alloc(0));
      for (const [name, data] of files) await w.addBytes({ name, date, mode: 0o640 }, data);
    });
    expect(tar.length % 512).toBe(0);
    const listed = execFileSync('tar', ['--quoting-style=literal', '-tf', '-'], { input: tar }).toString('latin1').split('\n').filter(Boolean);
    const want = ['deep/', ...files.map(([n]) => n)].map((n) =>
      Buffer.from(n === bytes ? 'caf\xe9.txt' : n, n === bytes ? 'latin1' : 'utf8').toString('latin1'),
    );
    expect(listed).toEqual(want);
    for (const [name, data] of files) {
      // argv cannot carry the byte 0xE9 alone from Node: a wildcard in the C locale matches it.
      const member = name === bytes ? ['--wildcards', 'caf?.txt'] : [name];
      const extracted = execFileSync('tar', ['-xOf', '-', ...member], { input: tar, env: { ...process.env, LC_ALL: 'C' } });
      expect(extracted.equals(data), name).toBe(true);
    }
    const verbose = execFileSync('tar', ['-tvf', '-', 'short.txt'], { input: tar, env: { ...process.env, TZ: 'UTC' } }).toString();
    expect(verbose).toMatch(/^-rw-r----- 0\/0\s+5 2024-05-06 07:08 short\.txt/);
  });

  it('cuts a long name at the last slash that fits ustar, never leaving the name part empty', () => {
    expect(ustarName(Buffer.from('x'.repeat(100)))?.prefix.length).toBe(0);
    const cut = ustarName(Buffer.from(`${'p'.repeat(150)}/${'n'.repeat(100)}`));
    expect(cut?.prefix.toString()).toBe('p'.repeat(150));
    expect(cut?.name.toString()).toBe('n'.repeat(100));
    expect(ustarName(Buffer.from(`${'p'.repeat(156)}/n`))).toBeUndefined();
    expect(ustarName(Buffer.from(`${'p'.repeat(10)}/${'n'.repeat(101)}`))).toBeUndefined();
    expect(ustarName(Buffer.from(`${'f'.repeat(120)}/`))).toBeUndefined();
  });

  it('puts a size above ustar’s 8 GiB into a pax record', async () => {
    const out = new PassThrough();
    const parts: Buffer[] = [];
    out.on('data', (b: Buffer) => parts.push(b));
    const size = 9 * 1024 ** 3;
    const w = new TarWriter(out);
    // A source that ends at once: the header goes out, then the entry fails for being short.
    await expect(w.addStream({ name: 'huge.bin', date, mode: 0o644 }, Readable.from([]), size)).rejects.toThrow(/shrank/);
    const head = Buffer.concat(parts);
    expect(head.subarray(156, 157).toString()).toBe('x');
    expect(head.subarray(512, 1024).toString()).toContain(` size=${size}\n`);
    expect(head.subarray(1024 + 124, 1024 + 135).toString()).toBe('0'.repeat(11));
  });

  it('fails an entry whose stream ends before the announced size', async () => {
    const w = new TarWriter(new PassThrough().resume());
    await expect(w.addStream({ name: 'f', date, mode: 0o644 }, Readable.from([Buffer.alloc(10)]), 20)).rejects.toThrow(/shrank/);
  });
});
