/**
 * /api/resources mutations: POST (create), PUT (save), PATCH (copy/move), DELETE. Conflicts,
 * `name (n).ext` renames, merges, atomic writes, upload limits, created modes (MODE).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { listTree, makeTree } from '../helpers/files.ts';

let fm: FmServer;
let admin: Client;
const abs = (p: string) => path.join(fm.root, p);
const read = (p: string) => fs.readFileSync(abs(p), 'utf8');
const modeOf = (p: string) => fs.statSync(abs(p)).mode & 0o777;

async function call(method: string, p: string, body?: string | Buffer) {
  const res = await admin.fetch(`/api/resources${p}`, { method, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}
const patch = (from: string, action: string, to: string, extra = '') => call('PATCH', `${from}?action=${action}&destination=${encodeURIComponent(to)}${extra}`);

async function setSettings(changes: Record<string, unknown>) {
  const current = await admin.json<Record<string, unknown>>('/api/settings');
  const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...current, ...changes } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});
beforeEach(() => {
  for (const e of fs.readdirSync(fm.root)) {
    try {
      fs.rmSync(abs(e), { recursive: true, force: true });
    } catch {
      // a mount point (EXDEV case): empty it instead
      for (const inner of fs.readdirSync(abs(e))) fs.rmSync(path.join(abs(e), inner), { recursive: true, force: true });
    }
  }
});

describe('POST creates', () => {
  it('a file from the body, answering 200 with an ETag', async () => {
    const r = await call('POST', '/new.txt', 'hello');
    expect(r.status).toBe(200);
    expect(r.text).toBe('200 OK\n');
    expect(r.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(read('new.txt')).toBe('hello');
  });

  it('missing parent folders', async () => {
    expect((await call('POST', '/x/y/z.txt', 'deep')).status).toBe(200);
    expect(read('x/y/z.txt')).toBe('deep');
  });

  it('409 when the name exists, replacing it only with override', async () => {
    makeTree(fm.root, { 'a.txt': 'old' });
    expect((await call('POST', '/a.txt', 'new')).status).toBe(409);
    expect(read('a.txt')).toBe('old');
    expect((await call('POST', '/a.txt?override=true', 'new')).status).toBe(200);
    expect(read('a.txt')).toBe('new');
  });

  it('409 for a file where a folder is, even with override', async () => {
    makeTree(fm.root, { d: {} });
    expect((await call('POST', '/d', 'x')).status).toBe(409);
    expect((await call('POST', '/d?override=true', 'x')).status).toBe(409);
    expect(fs.statSync(abs('d')).isDirectory()).toBe(true);
  });

  it('a folder with a trailing slash (mkdir -p, idempotent); 409 where a file is', async () => {
    expect((await call('POST', '/f1/f2/')).status).toBe(200);
    expect(fs.statSync(abs('f1/f2')).isDirectory()).toBe(true);
    expect((await call('POST', '/f1/f2/')).status).toBe(200);
    makeTree(fm.root, { 'file.txt': 'x' });
    expect((await call('POST', '/file.txt/')).status).toBe(409);
    expect((await call('POST', '/file.txt/sub/')).status).toBe(409);
    expect((await call('POST', '/file.txt/sub.txt', 'x')).status).toBe(409);
    expect((await call('POST', '/file.txt/deeper/sub.txt', 'x')).status).toBe(409);
    expect((await call('GET', '/file.txt/sub.txt')).status).toBe(404);
    expect((await call('GET', '/file.txt/deeper/sub.txt')).status).toBe(404);
  });

  it('an empty file', async () => {
    expect((await call('POST', '/empty.txt', '')).status).toBe(200);
    expect(fs.statSync(abs('empty.txt')).size).toBe(0);
  });

  it('keeps in-progress uploads out of listings', async () => {
    makeTree(fm.root, { '.fm-partial-0011223344556677': 'half' });
    const listing = await admin.json<{ items: unknown[] }>('/api/resources/');
    expect(listing.items).toEqual([]);
  });
});

describe('PUT saves', () => {
  it('an existing file, atomically replacing it', async () => {
    makeTree(fm.root, { 'doc.md': '# old' });
    const r = await call('PUT', '/doc.md', '# new');
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(read('doc.md')).toBe('# new');
  });

  it('creates a missing file, and a folder with a trailing slash', async () => {
    expect((await call('PUT', '/made.txt', 'made')).status).toBe(200);
    expect(read('made.txt')).toBe('made');
    expect((await call('PUT', '/newdir/')).status).toBe(200);
    expect(fs.statSync(abs('newdir')).isDirectory()).toBe(true);
  });

  it('400 for a folder without a trailing slash', async () => {
    makeTree(fm.root, { d: {} });
    expect((await call('PUT', '/d', 'x')).status).toBe(400);
  });
});

describe('atomic writes', () => {
  async function abortedUpload(method: string, p: string) {
    const u = new URL(fm.url);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method,
      path: `/api/resources${p}`,
      headers: { 'X-Auth': admin.token, 'Content-Length': '1000000' },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(300_000, 'n'));
    // Wait until the server is writing the temporary file, then cut the connection.
    const deadline = Date.now() + 10_000;
    while (!fs.readdirSync(path.dirname(abs(p))).some((n) => n.startsWith('.fm-partial-')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    req.destroy();
    while (fs.readdirSync(path.dirname(abs(p))).some((n) => n.startsWith('.fm-partial-')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('an aborted upload leaves no partial file and the old content intact', async () => {
    makeTree(fm.root, { 'keep.txt': 'precious' });
    await abortedUpload('POST', '/keep.txt?override=true');
    expect(fs.readdirSync(fm.root)).toEqual(['keep.txt']);
    expect(read('keep.txt')).toBe('precious');
  });

  it('an aborted save leaves the old content intact', async () => {
    makeTree(fm.root, { 'keep.txt': 'precious' });
    await abortedUpload('PUT', '/keep.txt');
    expect(fs.readdirSync(fm.root)).toEqual(['keep.txt']);
    expect(read('keep.txt')).toBe('precious');
  });

  it('an aborted new upload leaves nothing', async () => {
    await abortedUpload('POST', '/never.bin');
    expect(fs.readdirSync(fm.root)).toEqual([]);
  });
});

describe('upload size limit (settings.maxUploadSize)', () => {
  beforeAll(() => setSettings({ maxUploadSize: 1000 }));
  afterAll(() => setSettings({ maxUploadSize: 0 }));

  it('413 up front for a declared length over the limit', async () => {
    const r = await call('POST', '/big.bin', Buffer.alloc(2000));
    expect(r.status).toBe(413);
    expect(fs.readdirSync(fm.root)).toEqual([]);
  });

  it('413 while streaming a chunked body over the limit, with no file left', async () => {
    const res = await admin.fetch('/api/resources/chunked.bin', {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(800));
          c.enqueue(new Uint8Array(800));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(fs.readdirSync(fm.root)).toEqual([]);
  });

  it('accepts a body at the limit', async () => {
    expect((await call('POST', '/ok.bin', Buffer.alloc(1000))).status).toBe(200);
  });
});

describe('MODE: created files and folders get the configured modes', () => {
  beforeAll(() => setSettings({ fileMode: 0o664, dirMode: 0o775 }));
  afterAll(() => setSettings({ fileMode: 0o640, dirMode: 0o750 }));

  it('POST and PUT files and their new parents', async () => {
    await call('POST', '/m1/m2/f.txt', 'x');
    expect(modeOf('m1')).toBe(0o775);
    expect(modeOf('m1/m2')).toBe(0o775);
    expect(modeOf('m1/m2/f.txt')).toBe(0o664);
    await call('PUT', '/p.txt', 'x');
    expect(modeOf('p.txt')).toBe(0o664);
  });

  it('folders made with a trailing slash', async () => {
    await call('POST', '/n1/n2/');
    expect(modeOf('n1')).toBe(0o775);
    expect(modeOf('n1/n2')).toBe(0o775);
  });

  it('the defaults (0640 / 0750)', async () => {
    await setSettings({ fileMode: 0o640, dirMode: 0o750 });
    await call('POST', '/d/f.txt', 'x');
    expect(modeOf('d')).toBe(0o750);
    expect(modeOf('d/f.txt')).toBe(0o640);
  });

  it('an overwritten file keeps its mode; a copy keeps the source mode', async () => {
    makeTree(fm.root, { 'script.sh': 'echo' });
    fs.chmodSync(abs('script.sh'), 0o700);
    await call('POST', '/script.sh?override=true', 'echo 2');
    expect(modeOf('script.sh')).toBe(0o700);
    await patch('/script.sh', 'copy', '/copy.sh');
    expect(modeOf('copy.sh')).toBe(0o700);
  });
});

describe('PATCH copy', () => {
  it('copies a file and a folder tree', async () => {
    makeTree(fm.root, { 'a.txt': 'A', d: { 'b.txt': 'B', e: { 'c.txt': 'C' }, empty: {} } });
    expect((await patch('/a.txt', 'copy', '/a2.txt')).status).toBe(200);
    expect(read('a2.txt')).toBe('A');
    expect((await patch('/d', 'copy', '/x/d2')).status).toBe(200);
    expect(listTree(abs('x/d2'))).toEqual(['b.txt', 'e/', 'e/c.txt', 'empty/']);
    expect(listTree(abs('d'))).toEqual(['b.txt', 'e/', 'e/c.txt', 'empty/']);
  });

  it('409 when the destination exists; rename picks "name (1).ext", then "(2)"', async () => {
    makeTree(fm.root, { 'a.txt': 'A', 'b.txt': 'B', d: {} });
    expect((await patch('/a.txt', 'copy', '/b.txt')).status).toBe(409);
    expect(read('b.txt')).toBe('B');
    expect((await patch('/a.txt', 'copy', '/b.txt', '&rename=true')).status).toBe(200);
    expect((await patch('/a.txt', 'copy', '/b.txt', '&rename=true')).status).toBe(200);
    expect(read('b (1).txt')).toBe('A');
    expect(read('b (2).txt')).toBe('A');
    expect((await patch('/d', 'copy', '/d', '&rename=true')).status).toBe(200);
    expect(fs.statSync(abs('d (1)')).isDirectory()).toBe(true);
  });

  it('pasting into the same folder with rename makes a numbered copy', async () => {
    makeTree(fm.root, { 'a.tar.gz': 'A' });
    expect((await patch('/a.tar.gz', 'copy', '/a.tar.gz', '&rename=true')).status).toBe(200);
    expect(read('a.tar (1).gz')).toBe('A');
  });

  it('override replaces a file and merges folders', async () => {
    makeTree(fm.root, {
      'a.txt': 'A',
      'b.txt': 'B',
      src: { 'same.txt': 'new', 'only-src.txt': 's', sub: { 'x.txt': 'x' } },
      dst: { 'same.txt': 'old', 'only-dst.txt': 'd' },
    });
    expect((await patch('/a.txt', 'copy', '/b.txt', '&override=true')).status).toBe(200);
    expect(read('b.txt')).toBe('A');
    expect((await patch('/src', 'copy', '/dst', '&override=true')).status).toBe(200);
    expect(listTree(abs('dst'))).toEqual(['only-dst.txt', 'only-src.txt', 'same.txt', 'sub/', 'sub/x.txt']);
    expect(read('dst/same.txt')).toBe('new');
  });

  it('409 for a file onto a folder (or the reverse) even with override', async () => {
    makeTree(fm.root, { 'a.txt': 'A', d: {} });
    expect((await patch('/a.txt', 'copy', '/d', '&override=true')).status).toBe(409);
    expect((await patch('/d', 'copy', '/a.txt', '&override=true')).status).toBe(409);
  });

  it('400 when the destination is inside the source or equals it with override', async () => {
    makeTree(fm.root, { d: { 'f.txt': 'f' }, 'a.txt': 'A' });
    expect((await patch('/d', 'copy', '/d/inner')).status).toBe(400);
    expect((await patch('/d', 'copy', '/d/inner/deeper')).status).toBe(400);
    expect((await patch('/a.txt', 'copy', '/a.txt', '&override=true')).status).toBe(400);
    expect(listTree(abs('d'))).toEqual(['f.txt']);
  });

  it('403 for the root as source or destination', async () => {
    makeTree(fm.root, { 'a.txt': 'A', d: {} });
    expect((await patch('/', 'copy', '/d/root-copy')).status).toBe(403);
    expect((await patch('/a.txt', 'copy', '/')).status).toBe(403);
    expect((await patch('/d', 'rename', '/')).status).toBe(403);
  });

  it('404 for a missing source, 400 for a bad action or no destination', async () => {
    expect((await patch('/missing', 'copy', '/x')).status).toBe(404);
    makeTree(fm.root, { 'a.txt': 'A' });
    expect((await patch('/a.txt', 'delete', '/x')).status).toBe(400);
    expect((await call('PATCH', '/a.txt?action=copy')).status).toBe(400);
  });

  it('accepts the destination encoded twice, as filebrowser clients send it', async () => {
    makeTree(fm.root, { 'a.txt': 'A' });
    const to = encodeURIComponent('/dir with space/100% #1.txt'.split('/').map(encodeURIComponent).join('/'));
    const res = await call('PATCH', `/a.txt?action=copy&destination=${to}`);
    expect(res.status).toBe(200);
    expect(read('dir with space/100% #1.txt')).toBe('A');
  });
});

describe('PATCH rename (move)', () => {
  it('moves files and folders, creating missing parents', async () => {
    makeTree(fm.root, { 'a.txt': 'A', d: { 'b.txt': 'B' } });
    expect((await patch('/a.txt', 'rename', '/new/place/a.txt')).status).toBe(200);
    expect(read('new/place/a.txt')).toBe('A');
    expect((await patch('/d', 'rename', '/d2')).status).toBe(200);
    expect(fs.existsSync(abs('d'))).toBe(false);
    expect(read('d2/b.txt')).toBe('B');
    expect(fs.existsSync(abs('a.txt'))).toBe(false);
  });

  it('conflicts, rename and override like copy; a folder onto a folder merges', async () => {
    makeTree(fm.root, {
      'a.txt': 'A',
      'b.txt': 'B',
      src: { 'same.txt': 'new', sub: { 'x.txt': 'x' } },
      dst: { 'same.txt': 'old', 'keep.txt': 'k', sub: { 'y.txt': 'y' } },
    });
    expect((await patch('/a.txt', 'rename', '/b.txt')).status).toBe(409);
    expect((await patch('/a.txt', 'rename', '/b.txt', '&rename=true')).status).toBe(200);
    expect(read('b (1).txt')).toBe('A');
    expect((await patch('/b (1).txt', 'rename', '/b.txt', '&override=true')).status).toBe(200);
    expect(read('b.txt')).toBe('A');
    expect(fs.existsSync(abs('b (1).txt'))).toBe(false);
    expect((await patch('/src', 'rename', '/dst', '&override=true')).status).toBe(200);
    expect(fs.existsSync(abs('src'))).toBe(false);
    expect(listTree(abs('dst'))).toEqual(['keep.txt', 'same.txt', 'sub/', 'sub/x.txt', 'sub/y.txt']);
    expect(read('dst/same.txt')).toBe('new');
  });

  it('a case-only rename works', async () => {
    makeTree(fm.root, { 'Readme.md': 'r' });
    expect((await patch('/Readme.md', 'rename', '/README.md')).status).toBe(200);
    expect(fs.readdirSync(fm.root)).toEqual(['README.md']);
  });

  it('moving onto itself with override changes nothing', async () => {
    makeTree(fm.root, { 'a.txt': 'A' });
    expect((await patch('/a.txt', 'rename', '/a.txt', '&override=true')).status).toBe(200);
    expect(read('a.txt')).toBe('A');
  });

  it('400 when the destination is inside the source', async () => {
    makeTree(fm.root, { d: { e: {} } });
    expect((await patch('/d', 'rename', '/d/e/d')).status).toBe(400);
    expect(listTree(abs('d'))).toEqual(['e/']);
  });

  describe('across file systems (EXDEV falls back to copy + delete)', () => {
    let mounted = false;
    beforeAll(() => {
      try {
        fs.mkdirSync(path.join(fm.root, 'mnt'));
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', path.join(fm.root, 'mnt')], { stdio: 'ignore' });
        mounted = true;
      } catch {
        mounted = false; // not allowed to mount here: the case is skipped
      }
    });
    afterAll(() => {
      if (mounted) execFileSync('umount', [path.join(fm.root, 'mnt')]);
    });

    it('moves a folder onto another file system', async (ctx) => {
      if (!mounted) ctx.skip();
      makeTree(abs('mnt'), { far: { 'f.txt': 'far', sub: { 'g.txt': 'g' } } });
      fs.chmodSync(abs('mnt/far/f.txt'), 0o600);
      // beforeEach wiped the root but not the mount's contents
      expect((await patch('/mnt/far', 'rename', '/near')).status).toBe(200);
      expect(fs.existsSync(abs('mnt/far'))).toBe(false);
      expect(listTree(abs('near'))).toEqual(['f.txt', 'sub/', 'sub/g.txt']);
      expect(modeOf('near/f.txt')).toBe(0o600);
      expect((await patch('/near/f.txt', 'rename', '/mnt/back.txt')).status).toBe(200);
      expect(read('mnt/back.txt')).toBe('far');
    });
  });
});

describe('large listings (rendered in worker threads)', () => {
  it('lists 6000 entries in natural order, pages consistently, and no worker failed', async () => {
    const dir = abs('big');
    fs.mkdirSync(dir);
    for (let i = 0; i < 6000; i++) fs.closeSync(fs.openSync(path.join(dir, `f${i}.txt`), 'w'));
    makeTree(dir, { sub: {}, 'a-link': { link: 'f1.txt' } });
    const all = await admin.json<{ items: Array<{ name: string; type: string }>; numDirs: number; numFiles: number }>('/api/resources/big');
    expect(all.numDirs).toBe(1);
    expect(all.numFiles).toBe(6001);
    expect(all.items.slice(0, 4).map((i) => i.name)).toEqual(['sub', 'a-link', 'f0.txt', 'f1.txt']);
    expect(all.items.at(-1)!.name).toBe('f5999.txt');
    expect(all.items[2].type).toBe('text');
    const page = await admin.json<{ items: Array<{ name: string }>; numTotal: number }>('/api/resources/big?offset=100&limit=50');
    expect(page.numTotal).toBe(6002);
    expect(page.items.map((i) => i.name)).toEqual(all.items.slice(100, 150).map((i) => i.name));
    expect(fm.output()).not.toContain('listing worker failed');
  });
});

describe('DELETE', () => {
  it('removes a file and a whole tree with 204 (the trash off; the trash is in trash-*.test.ts)', async () => {
    await setSettings({ trashRetention: 0 });
    makeTree(fm.root, { 'a.txt': 'A', d: { e: { 'f.txt': 'f' } } });
    const r = await call('DELETE', '/a.txt');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await call('DELETE', '/d')).status).toBe(204);
    expect(fs.readdirSync(fm.root)).toEqual([]);
    await setSettings({ trashRetention: 30 * 86400 });
  });

  it('404 when missing, 403 for the root', async () => {
    expect((await call('DELETE', '/missing')).status).toBe(404);
    makeTree(fm.root, { 'a.txt': 'A' });
    expect((await call('DELETE', '/')).status).toBe(403);
    expect((await admin.fetch('/api/resources', { method: 'DELETE' })).status).toBe(403);
    expect(fs.readdirSync(fm.root)).toEqual(['a.txt']);
  });
});
