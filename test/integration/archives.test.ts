/**
 * ARCH: folder and selection downloads in every format. Each archive is extracted with the
 * system tools into a temporary folder: entries with `..`-like names, backslashes, leading
 * dashes and drive-like prefixes land inside it, and nothing is written beside it.
 * Also: archive names, formats, and the compressor dying with the client.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decompressArchive } from '../helpers/archives.ts';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { enc, listTree, makeTree, rawRequest, type Tree } from '../helpers/files.ts';

let fm: FmServer;
let admin: Client;

const LONG = `${'long-name-'.repeat(20)}.txt`;
const ODD: Tree = {
  '..foo': 'dotdot-prefix',
  '...': 'three-dots',
  'a\\b.txt': 'backslash',
  '..\\..\\evil.txt': 'backslash-climb',
  '-rf': 'dash',
  '--help.txt': 'double-dash',
  ' leading space.txt': 'space',
  'C:drive.txt': 'drive',
  '日本語.txt': 'unicode',
  'empty.txt': '',
  'empty-dir': {},
  deep: { er: { and: { deeper: { [LONG]: 'long path' } } }, 'x\\..\\..\\y': { 'z.txt': 'nested backslash' } },
};

/** What each fixture path must be called inside an archive rooted at the fixture folder. */
function expectedTree(): string[] {
  const out: string[] = [];
  const walk = (tree: Tree, prefix: string[]) => {
    for (const [name, value] of Object.entries(tree)) {
      let seg = name.replace(/\\/g, '_');
      if (prefix.length === 0 && /^\w+:/.test(seg)) seg = seg.replace(':', '_');
      const rel = [...prefix, seg];
      if (typeof value === 'string') out.push(rel.join('/'));
      else {
        out.push(`${rel.join('/')}/`);
        walk(value as Tree, rel);
      }
    }
  };
  walk(ODD, []);
  return out.sort();
}

function entryNames(kind: 'tar' | 'zip', file: string): string[] {
  if (kind === 'tar') return execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** Extracts into a fresh folder inside a fresh sandbox; returns the folder. */
function extract(kind: 'tar' | 'zip', file: string, sandbox: string): string {
  const into = path.join(sandbox, 'into');
  fs.mkdirSync(into, { recursive: true });
  if (kind === 'tar') execFileSync('tar', ['-xf', file, '-C', into]);
  else spawnSync('unzip', ['-q', '-o', file, '-d', into]);
  return into;
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  makeTree(path.join(fm.root, 'odd'), ODD);
  makeTree(fm.root, { 'top.txt': 'top', sel: { 'one.txt': '1', 'two.txt': '2', sub: { 'three.txt': '3' } } });
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});

const get = (p: string) => rawRequest(fm.url, p, { headers: { 'X-Auth': admin.token } });

describe('ARCH: hostile names extract safely in every format', () => {
  for (const algo of ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst']) {
    it(algo, async () => {
      const res = await get(`/api/raw/odd?algo=${algo}`);
      expect(res.status).toBe(200);
      const sandbox = fs.mkdtempSync(path.join(fm.home, `x-${algo}-`));
      const file = path.join(fm.home, `odd-${algo}.archive`);
      const kind = await decompressArchive(algo, res.body, file);
      for (const name of entryNames(kind, file)) {
        expect(name.startsWith('/'), name).toBe(false);
        expect(name.split('/'), name).not.toContain('..');
        expect(name, name).not.toContain('\\');
      }
      if (kind === 'zip') expect(spawnSync('unzip', ['-tq', file]).status).toBe(0);
      const into = extract(kind, file, sandbox);
      expect(fs.readdirSync(sandbox)).toEqual(['into']);
      expect(listTree(into)).toEqual(expectedTree());
      expect(fs.readFileSync(path.join(into, '..\\..\\evil.txt'.replace(/\\/g, '_')), 'utf8')).toBe('backslash-climb');
      expect(fs.readFileSync(path.join(into, 'deep/er/and/deeper', LONG), 'utf8')).toBe('long path');
      expect(fs.readFileSync(path.join(into, '日本語.txt'), 'utf8')).toBe('unicode');
      fs.rmSync(sandbox, { recursive: true });
      fs.rmSync(file);
    });
  }
});

describe('archive names and selections', () => {
  it('a folder is named after itself, its contents at the top', async () => {
    const res = await get('/api/raw/sel');
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="sel.zip"; filename*=UTF-8''sel.zip`);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    const file = path.join(fm.home, 'sel.zip');
    fs.writeFileSync(file, res.body);
    expect(entryNames('zip', file).sort()).toEqual(['one.txt', 'sub/', 'sub/three.txt', 'two.txt']);
  });

  it('a selection is named "_<folder>" and keeps its items by name', async () => {
    const res = await get(`/api/raw/sel?files=${encodeURIComponent('one.txt,sub')}&algo=tar`);
    expect(res.headers['content-disposition']).toContain(`filename*=UTF-8''_sel.tar`);
    const file = path.join(fm.home, 'selection.tar');
    fs.writeFileSync(file, res.body);
    expect(entryNames('tar', file).sort()).toEqual(['one.txt', 'sub/', 'sub/three.txt']);
  });

  it("the SPA's form: /api/raw/?files=<encoded list of encoded paths>", async () => {
    const list = ['/top.txt', `/sel/${enc('one.txt')}`].join(',');
    const res = await get(`/api/raw/?files=${encodeURIComponent(list)}&algo=targz`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toContain(`filename*=UTF-8''_archive.tar.gz`);
    const file = path.join(fm.home, 'spa.tar');
    await decompressArchive('targz', res.body, file);
    expect(entryNames('tar', file).sort()).toEqual(['sel/one.txt', 'top.txt']);
  });

  it('names with commas survive when encoded; duplicates and nested items are archived once', async () => {
    makeTree(fm.root, { 'a,b.txt': 'comma' });
    const res = await get(`/api/raw/?files=${encodeURIComponent(`/${encodeURIComponent('a,b.txt')},/sel,/sel/one.txt,/sel`)}&algo=tar`);
    const file = path.join(fm.home, 'comma.tar');
    fs.writeFileSync(file, res.body);
    expect(entryNames('tar', file).sort()).toEqual(['a,b.txt', 'sel/', 'sel/one.txt', 'sel/sub/', 'sel/sub/three.txt', 'sel/two.txt']);
  });

  it('HEAD gives the headers without building the archive', async () => {
    const res = await rawRequest(fm.url, '/api/raw/sel?algo=tarbz2', { method: 'HEAD', headers: { 'X-Auth': admin.token } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-bzip2');
    expect(res.headers['content-disposition']).toContain('sel.tar.bz2');
    expect(res.body.length).toBe(0);
  });

  it('algo: empty and true mean zip; unknown is 400; missing items 404', async () => {
    for (const a of ['', 'true', 'zip']) expect((await get(`/api/raw/sel?algo=${a}`)).headers['content-type'], a).toBe('application/zip');
    for (const a of ['rar', 'tar.gz', '../zip', 'TARGZ']) expect((await get(`/api/raw/sel?algo=${encodeURIComponent(a)}`)).status, a).toBe(400);
    expect((await get(`/api/raw/sel?files=${encodeURIComponent('one.txt,missing.txt')}`)).status).toBe(404);
  });
});

describe('contents', () => {
  it('small files (read ahead) and large files (streamed) keep their bytes in zip and tar.gz, each archived once', async () => {
    const mixed = path.join(fm.root, 'mixed');
    const want = new Map<string, Buffer>();
    fs.mkdirSync(mixed);
    for (let i = 0; i < 40; i++) {
      // Every 7th file is above the read-ahead size (256 KiB), the rest below it; odd ones
      // compress (deflated where they are read), even ones do not (stored).
      const data = i % 7 === 0 ? crypto.randomBytes(300_000 + i) : i % 2 ? Buffer.from(`line ${i}\n`.repeat(100 * i)) : crypto.randomBytes(1000 * i);
      const name = `f${String(i).padStart(2, '0')}.bin`;
      fs.writeFileSync(path.join(mixed, name), data);
      want.set(name, data);
    }
    // Deflated in 1 MiB pieces on the workers, which must join into one stream that unzip checks.
    const pieces = Buffer.concat(Array.from({ length: 5 }, (_, i) => Buffer.concat([Buffer.from(`piece ${i}\n`.repeat(60_000)), crypto.randomBytes(1000)])));
    fs.writeFileSync(path.join(mixed, 'pieces.txt'), pieces);
    want.set('pieces.txt', pieces);
    for (const algo of ['zip', 'targz']) {
      const res = await get(`/api/raw/mixed?algo=${algo}`);
      expect(res.status).toBe(200);
      const sandbox = fs.mkdtempSync(path.join(fm.home, `mixed-${algo}-`));
      const file = path.join(fm.home, `mixed.${algo}`);
      const kind = await decompressArchive(algo, res.body, file);
      expect(entryNames(kind, file).sort()).toEqual([...want.keys()].sort());
      if (kind === 'zip') expect(spawnSync('unzip', ['-tq', file]).status).toBe(0);
      const into = extract(kind, file, sandbox);
      for (const [name, data] of want) expect(fs.readFileSync(path.join(into, name)).equals(data), `${algo} ${name}`).toBe(true);
      fs.rmSync(sandbox, { recursive: true });
      fs.rmSync(file);
    }
    fs.rmSync(mixed, { recursive: true });
  });
});

describe('a client that leaves stops the archive', () => {
  it('the compressor process is killed', async () => {
    const big = path.join(fm.root, 'big');
    fs.mkdirSync(big);
    // Incompressible data, so that the compressor is still busy when the first bytes arrive.
    for (let i = 0; i < 16; i++) fs.writeFileSync(path.join(big, `f${i}.bin`), crypto.randomBytes(1 << 20));
    const children = () =>
      spawnSync('ps', ['-o', 'comm=', '--ppid', String(fm.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((s) => /bzip2|xz|zstd|lz4/.test(s));
    // bzip2 streams block by block (xz -T0 holds its output back, zstd and lz4 finish too fast
    // to be caught running); the kill-on-close path is the same for every program.
    for (const algo of ['tarbz2']) {
      const u = new URL(fm.url);
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: u.hostname, port: u.port, path: `/api/raw/big?algo=${algo}`, headers: { 'X-Auth': admin.token } }, (res) => {
          res.once('data', () => {
            const running = children().length;
            req.destroy();
            if (running > 0) resolve();
            else reject(new Error(`no ${algo} compressor was running`));
          });
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      });
      const deadline = Date.now() + 10_000;
      while (children().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(children(), algo).toEqual([]);
    }
    // The server still serves.
    expect((await get('/api/raw/top.txt')).text).toBe('top');
    fs.rmSync(big, { recursive: true });
  });
});

describe('a client that leaves mid-archive', () => {
  it('leaves no file open on the server', async () => {
    const many = path.join(fm.root, 'many');
    fs.mkdirSync(many);
    // Above the read-ahead size: entries prepared ahead hold open handles until their turn.
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(many, `f${i}.bin`), crypto.randomBytes(300_000));
    const openFiles = () =>
      fs.readdirSync(`/proc/${fm.pid}/fd`).filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/${fm.pid}/fd/${fd}`).startsWith(many);
        } catch {
          return false;
        }
      }).length;
    const u = new URL(fm.url);
    for (const algo of ['zip', 'targz']) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: u.hostname, port: u.port, path: `/api/raw/many?algo=${algo}`, headers: { 'X-Auth': admin.token } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      });
      const deadline = Date.now() + 10_000;
      while (openFiles() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(openFiles(), algo).toBe(0);
    }
    expect((await get('/api/raw/top.txt')).text).toBe('top');
    fs.rmSync(many, { recursive: true });
  });
});
