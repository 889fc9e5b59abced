/**
 * bin/fm.js runs fm's CommonJS build with V8's code cache (src/boot/): a start with no valid cache
 * writes one in $XDG_CACHE_HOME/fm/code-cache once it listens, a valid one is used as it is, and
 * a damaged one, one made for another bundle, or a folder that cannot be written only mean a
 * start without a cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { bundleHashOf } from '../../src/boot/script.ts';
import { runFm } from '../helpers/cli.ts';
import { adminClient, PROJECT_ROOT, tempDir } from '../helpers/server.ts';
import { spawnFm } from '../helpers/spawn.ts';

const bundleHash = bundleHashOf(fs.readFileSync(path.join(PROJECT_ROOT, 'dist', 'server', 'fm.cjs'), 'latin1').slice(0, 200));

const cacheFiles = (cacheHome: string): string[] => {
  const folder = path.join(cacheHome, 'fm', 'code-cache');
  return fs.existsSync(folder) ? fs.readdirSync(folder).map((name) => path.join(folder, name)) : [];
};

/** The header of a cache file, and whether its data is whole. */
function inspect(file: string): { bundle: string; whole: boolean } {
  const bytes = fs.readFileSync(file);
  const end = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, end).toString());
  const data = bytes.subarray(end + 1);
  return { bundle: header.bundle, whole: data.length === header.length && zlib.crc32(data) === header.crc32 };
}

/** Starts `fm serve` with this cache home, lists the root as the admin, and stops. */
async function serveOnce(cacheHome: string): Promise<void> {
  const fm = await spawnFm({ env: { XDG_CACHE_HOME: cacheHome } });
  const admin = await adminClient(fm);
  expect((await admin.fetch('/api/resources/')).status).toBe(200);
  expect(await fm.stop()).toBe(0);
}

/** Waits until the cache holds one whole file made for the current bundle. */
async function goodCache(cacheHome: string): Promise<string> {
  return vi.waitFor(
    () => {
      const files = cacheFiles(cacheHome);
      expect(files).toHaveLength(1);
      expect(inspect(files[0])).toEqual({ bundle: bundleHash, whole: true });
      return files[0];
    },
    { timeout: 10_000, interval: 50 },
  );
}

describe('the code cache of the CommonJS build', () => {
  it('is written by the first start once it listens, then used as it is by the next', async () => {
    expect(bundleHash).toMatch(/^[0-9a-f]{64}$/);
    const cacheHome = tempDir();
    await serveOnce(cacheHome);
    const file = await goodCache(cacheHome);
    const written = fs.readFileSync(file);
    const { mtimeMs } = fs.statSync(file);

    await serveOnce(cacheHome);
    expect(fs.statSync(file).mtimeMs).toBe(mtimeMs);
    expect(fs.readFileSync(file).equals(written)).toBe(true);
  });

  it('is not used when damaged or made for another bundle: fm starts, answers, and writes a good one', async () => {
    const cacheHome = tempDir();
    await serveOnce(cacheHome);
    const file = await goodCache(cacheHome);
    const good = fs.readFileSync(file);
    const end = good.indexOf(0x0a);
    const flipped = Buffer.from(good);
    flipped[end + 1 + Math.floor((good.length - end) / 2)] ^= 0xff;
    const header = JSON.parse(good.subarray(0, end).toString());
    const otherBundle = Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, bundle: 'f'.repeat(64) })}\n`), good.subarray(end + 1)]);

    for (const bad of [flipped, otherBundle, Buffer.from('junk')]) {
      fs.writeFileSync(file, bad);
      await serveOnce(cacheHome);
      await goodCache(cacheHome);
    }
  });

  it('is skipped where the cache folder cannot be written', async () => {
    const notAFolder = path.join(tempDir(), 'file');
    fs.writeFileSync(notAFolder, '');
    await serveOnce(notAFolder);
    expect(fs.statSync(notAFolder).isFile()).toBe(true);
  });

  it('is written only by `fm serve`: other commands run without one', async () => {
    const cacheHome = tempDir();
    const version = await runFm(['version'], { env: { XDG_CACHE_HOME: cacheHome } });
    expect([version.code, version.stdout, version.stderr]).toEqual([0, expect.stringMatching(/^fm v\d/), '']);
    expect(cacheFiles(cacheHome)).toEqual([]);
  });
});

describe('packages left out of the bundle', () => {
  it("load through the loader's import(): a thumbnail from sharp, served by the built fm", async () => {
    const home = tempDir();
    const root = path.join(home, 'root');
    fs.mkdirSync(root);
    // Larger than a thumbnail: a preview that failed would be the original, served as it is.
    const png = await sharp({ create: { width: 1000, height: 1000, channels: 3, background: 'green' } })
      .png()
      .toBuffer();
    fs.writeFileSync(path.join(root, 'green.png'), png);
    const fm = await spawnFm({ home, root, env: { XDG_CACHE_HOME: path.join(home, 'cache') } });
    try {
      const res = await (await adminClient(fm)).fetch('/api/preview/thumb/green.png');
      expect(res.status).toBe(200);
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBeLessThan(1000);
      expect(fm.output()).not.toMatch(/preview of .* failed/);
    } finally {
      await fm.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
