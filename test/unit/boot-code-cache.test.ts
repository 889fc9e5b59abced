/**
 * The code cache file of the CommonJS build (src/boot/code-cache.ts): a cache is used only when it
 * is whole and was made for this bundle and this Node; anything else is no cache, never an error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  cacheFileName,
  codeCacheFolder,
  decodeCache,
  encodeCache,
  identityOf,
  readCache,
  readingBlock,
  readWhole,
  writeCache,
} from '../../src/boot/code-cache.ts';
import { runScript } from '../../src/boot/script.ts';
import { bundleHashOf } from '../../src/boot/script.ts';
import { tempDir } from '../helpers/server.ts';

const id = identityOf('a'.repeat(64));
const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

describe('the code cache file', () => {
  it('gives back the data it was made with, for the same bundle and Node', () => {
    expect(decodeCache(encodeCache(id, data), id)?.equals(data)).toBe(true);
  });

  it('is no cache for another bundle, another Node version, another architecture or other Node flags', () => {
    const file = encodeCache(id, data);
    for (const other of [{ bundle: 'b'.repeat(64) }, { node: 'v20.0.0' }, { arch: 'ia32' }, { flags: '--jitless' }]) {
      expect(decodeCache(file, { ...id, ...other })).toBeUndefined();
    }
  });

  it('is no cache when cut short, when a byte of the data changed, or when it is junk', () => {
    const file = encodeCache(id, data);
    expect(decodeCache(file.subarray(0, file.length - 1), id)).toBeUndefined();
    const flipped = Buffer.from(file);
    flipped[flipped.length - 100] ^= 0x01;
    expect(decodeCache(flipped, id)).toBeUndefined();
    expect(decodeCache(Buffer.alloc(file.length, 0x5a), id)).toBeUndefined();
    expect(decodeCache(Buffer.from('{"bundle":\n'), id)).toBeUndefined();
  });

  it('is written whole and read back; other identities get other files', () => {
    const folder = path.join(tempDir(), 'fm', 'code-cache');
    expect(writeCache(folder, id, data)).toBe(true);
    expect(readCache(folder, id)?.equals(data)).toBe(true);
    expect(readCache(folder, { ...id, bundle: 'c'.repeat(64) })).toBeUndefined();
    expect(fs.readdirSync(folder)).toEqual([cacheFileName(id)]);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('reads a file whole and exactly, empty or larger than a read', () => {
    const dir = tempDir();
    for (const size of [0, 1, 3 << 20]) {
      const bytes = Buffer.alloc(size, 0);
      for (let i = 0; i < size; i++) bytes[i] = (i * 7) & 0xff;
      const file = path.join(dir, `f${size}`);
      fs.writeFileSync(file, bytes);
      expect(readWhole(file).equals(bytes)).toBe(true);
    }
  });

  it("reads the bundle and then its cache into one block (two passed V8's external memory limit), a larger file into its own", () => {
    const dir = tempDir();
    const bundle = path.join(dir, 'bundle');
    fs.writeFileSync(bundle, 'x'.repeat(1000));
    const block = readingBlock();
    const read = readWhole(bundle, block);
    expect(read.buffer).toBe(block.buffer);
    expect(read.toString('latin1')).toBe('x'.repeat(1000));
    const folder = tempDir();
    writeCache(folder, id, data);
    const cache = readCache(folder, id, block);
    expect(cache?.equals(data)).toBe(true);
    expect(cache?.buffer).toBe(block.buffer);
    const small = Buffer.alloc(10);
    const own = readWhole(bundle, small);
    expect(own.buffer).not.toBe(small.buffer);
    expect(own.toString('latin1')).toBe('x'.repeat(1000));
  });

  it('the loader allocates one such block for the bundle and its cache', () => {
    const dir = tempDir();
    const hash = 'b'.repeat(64);
    const bundle = path.join(dir, 'fm.cjs');
    fs.writeFileSync(bundle, `/* fm-bundle ${hash} */ module.exports.ran = true;`);
    const folder = tempDir();
    writeCache(folder, identityOf(hash), data); // not V8's: rejected, and the script compiles without it
    const alloc = vi.spyOn(Buffer, 'alloc');
    try {
      runScript(bundle, folder);
      expect(alloc.mock.calls.filter(([size]) => size >= 32 << 20)).toHaveLength(1);
    } finally {
      alloc.mockRestore();
    }
  });

  it('keeps the four newest caches of the folder', () => {
    const folder = tempDir();
    const ids = ['1', '2', '3', '4', '5', '6'].map((c) => identityOf(c.repeat(64)));
    ids.forEach((each, i) => {
      writeCache(folder, each, data);
      const file = path.join(folder, cacheFileName(each));
      fs.utimesSync(file, 1000 + i, 1000 + i);
    });
    writeCache(folder, ids[5], data);
    expect(fs.readdirSync(folder).sort()).toEqual(ids.slice(2).map(cacheFileName).sort());
  });

  it('is not written, and no error thrown, where the folder cannot be made', () => {
    const notAFolder = path.join(tempDir(), 'file');
    fs.writeFileSync(notAFolder, '');
    expect(writeCache(path.join(notAFolder, 'code-cache'), id, data)).toBe(false);
    expect(readCache(path.join(notAFolder, 'code-cache'), id)).toBeUndefined();
  });

  it("lives in $XDG_CACHE_HOME/fm, else in the home folder's .cache/fm, never in the temporary folder", () => {
    expect(codeCacheFolder({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/fm/code-cache');
    expect(codeCacheFolder({ XDG_CACHE_HOME: 'relative' })).toBe(path.join(os.homedir(), '.cache', 'fm', 'code-cache'));
    expect(codeCacheFolder({})).toBe(path.join(os.homedir(), '.cache', 'fm', 'code-cache'));
  });

  it("reads the bundle's content hash from its first line", () => {
    expect(bundleHashOf(`/* fm-bundle ${'d'.repeat(64)} */ 'use strict';\nvar x;`)).toBe('d'.repeat(64));
    expect(bundleHashOf(`var x;\n/* fm-bundle ${'d'.repeat(64)} */`)).toBeUndefined();
  });
});
