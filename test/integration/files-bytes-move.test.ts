/**
 * No silent data loss: copy, move and delete handle every entry of a folder, names that are not
 * valid UTF-8 included (addressed on the wire by their escaped form, disk/names.ts), also onto
 * another file system (a tmpfs mounted under the root). A move across file systems removes its
 * source only once everything arrived; a failure midway (the tmpfs full) leaves the source
 * whole, the destination clean, and answers an error that names the entry.
 * Mounting needs root (CI runs as root); elsewhere the cross-device cases are skipped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { rawRequest } from '../helpers/files.ts';

let fm: FmServer;
let admin: Client;
const mounts: string[] = [];
let mountError = '';

const b = (s: string) => Buffer.from(s, 'latin1');
/** A path under the root from latin1 segments (each char one byte: any byte string). */
const at = (...segs: string[]) => Buffer.concat([b(`${fm.root}/`), b(segs.join('/'))]);
/** The escaped (wire) form of a latin1 name: bytes that are not UTF-8 become U+F700+byte. */
const wire = (latin1: string) => {
  let out = '';
  for (const ch of latin1) out += ch.charCodeAt(0) >= 0x80 ? String.fromCharCode(0xf700 + ch.charCodeAt(0)) : ch;
  return out;
};
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** Every entry under a folder, byte-exact (latin1), with file contents and link targets. */
function snapshot(dir: Buffer | string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: Buffer, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true, encoding: 'buffer' })) {
      const name = e.name.toString('latin1');
      const r = rel ? `${rel}/${name}` : name;
      const p = Buffer.concat([d, b('/'), e.name]);
      if (e.isDirectory()) {
        out[`${r}/`] = 'dir';
        walk(p, r);
      } else if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(p, { encoding: 'buffer' }).toString('latin1')}`;
      else if (e.isFile()) out[r] = fs.readFileSync(p).toString('latin1');
      else out[r] = 'special';
    }
  };
  walk(typeof dir === 'string' ? b(dir) : dir, '');
  return out;
}

/** A tree whose names are not UTF-8: Latin-1 bytes, lone continuation bytes, 0xFF, an escape lookalike. */
function makeByteTree(top: Buffer): Record<string, string> {
  fs.mkdirSync(top);
  const file = (rel: string, content: string) => fs.writeFileSync(Buffer.concat([top, b(`/${rel}`)]), b(content));
  file('plain.txt', 'plain');
  file('caf\xe9.txt', 'latin-1 name');
  file('\xff\xfe', 'two bad bytes');
  file('ok-\xc3\xa9.txt', 'valid UTF-8 (é)');
  file('lookalike-\xef\x9f\xa9', 'UTF-8 of an escape character, stored as bytes');
  fs.mkdirSync(Buffer.concat([top, b('/d\xe9')]));
  file('d\xe9/\x80.bin', 'continuation byte');
  fs.mkdirSync(Buffer.concat([top, b('/d\xe9/deeper\xa0')]));
  file('d\xe9/deeper\xa0/end.txt', 'deep');
  fs.symlinkSync(b('caf\xe9.txt'), Buffer.concat([top, b('/link\xe9')]));
  return snapshot(top);
}

async function call(method: string, p: string) {
  const res = await rawRequest(fm.url, p, { method, headers: { 'X-Auth': admin.token } });
  return { status: res.status, text: res.text };
}
const move = (from: string, to: string) => call('PATCH', `/api/resources${enc(from)}?action=rename&destination=${encodeURIComponent(enc(to))}`);
const copy = (from: string, to: string) => call('PATCH', `/api/resources${enc(from)}?action=copy&destination=${encodeURIComponent(enc(to))}`);

function mount(name: string, size: string): string | undefined {
  const dir = path.join(fm.root, name);
  fs.mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounts.push(dir);
    return dir;
  } catch (err) {
    mountError = `cannot mount a tmpfs (needs root): ${(err as Error).message.split('\n')[0]}`;
    return undefined;
  }
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  mount('far', '64m');
  mount('small', '1m');
});
afterAll(async () => {
  for (const m of mounts) execFileSync('umount', [m]);
  // 507 is the expected answer of a full file system; any other 5xx is a bug.
  expect(fm.output()).not.toMatch(/ 5(?!07)\d\d [\d.]+ms/);
  await fm.stop();
});
beforeEach(() => {
  // Everything under the root but the mount points themselves (find handles any byte name).
  const keep = ['far', 'small'].flatMap((m) => ['-not', '-path', path.join(fm.root, m)]);
  execFileSync('find', [fm.root, '-mindepth', '1', ...keep, '-delete']);
});

describe('same file system: every entry, byte-exact', () => {
  it('copy carries names that are not UTF-8, links as links', async () => {
    const before = makeByteTree(at('src'));
    expect((await copy('/src', '/copy')).status).toBe(200);
    expect(snapshot(at('copy'))).toEqual(before);
    expect(snapshot(at('src'))).toEqual(before);
  });

  it('move and delete too', async () => {
    const before = makeByteTree(at('src'));
    expect((await move('/src', '/moved')).status).toBe(200);
    expect(snapshot(at('moved'))).toEqual(before);
    expect(fs.existsSync(at('src'))).toBe(false);
    expect((await call('DELETE', '/api/resources/moved')).status).toBe(204);
    expect(fs.readdirSync(fm.root).filter((n) => !['far', 'small', '.fm-trash'].includes(n))).toEqual([]);
  });

  it('a file with a byte name is addressed by its escaped form', async () => {
    makeByteTree(at('src'));
    expect((await move(`/src/${wire('caf\xe9.txt')}`, `/src/${wire('renamed\xe9.txt')}`)).status).toBe(200);
    expect(fs.readFileSync(at('src', 'renamed\xe9.txt')).toString('latin1')).toBe('latin-1 name');
    expect((await call('DELETE', `/api/resources${enc(`/src/${wire('d\xe9')}`)}`)).status).toBe(204);
    expect(fs.existsSync(at('src', 'd\xe9'))).toBe(false);
  });

  it('raw invalid UTF-8 in the URL path or in destination= is 400, never another name', async () => {
    makeByteTree(at('src'));
    expect((await call('DELETE', '/api/resources/src/caf%E9.txt')).status).toBe(400);
    // One layer of encoding (the query string's): invalid UTF-8 there was turned into U+FFFD.
    expect((await call('PATCH', `/api/resources/src/plain.txt?action=copy&destination=%2Fsrc%2Fx%E9.txt`)).status).toBe(400);
    // Two layers, as clients send it: the inner one is invalid.
    expect((await call('PATCH', `/api/resources/src/plain.txt?action=copy&destination=${encodeURIComponent('/src/x%E9.txt')}`)).status).toBe(400);
    expect(fs.readdirSync(at('src')).filter((n) => n.startsWith('x'))).toEqual([]);
  });

  it('raw invalid UTF-8 in files= of an archive download is 400, never another name', async () => {
    makeByteTree(at('src'));
    expect((await call('GET', '/api/raw/src?algo=zip&files=caf%E9.txt')).status).toBe(400);
    const ok = await call('GET', `/api/raw/src?algo=zip&files=${encodeURIComponent(wire('caf\xe9.txt'))}`);
    expect(ok.status).toBe(200);
  });
});

describe('across file systems', () => {
  beforeEach((ctx) => {
    if (mounts.length < 2) ctx.skip(mountError || 'tmpfs mounts unavailable');
  });

  it('a move carries every entry, non-UTF-8 names included, then removes the source', async () => {
    const before = makeByteTree(at('src'));
    const res = await move('/src', '/far/src');
    expect(res.status, res.text).toBe(200);
    expect(snapshot(at('far', 'src'))).toEqual(before);
    expect(fs.existsSync(at('src'))).toBe(false);
    // And back, onto the root's file system, merging into an existing folder with override.
    fs.mkdirSync(at('back'));
    fs.writeFileSync(at('back', 'keep.txt'), 'kept');
    const back = await call('PATCH', `/api/resources/far/src?action=rename&override=true&destination=${encodeURIComponent('/back')}`);
    expect(back.status, back.text).toBe(200);
    expect(snapshot(at('back'))).toEqual({ ...before, 'keep.txt': 'kept' });
    expect(fs.readdirSync(at('far'))).toEqual([]);
  });

  it('a copy carries every entry and leaves the source', async () => {
    const before = makeByteTree(at('src'));
    expect((await copy('/src', '/far/copy')).status).toBe(200);
    expect(snapshot(at('far', 'copy'))).toEqual(before);
    expect(snapshot(at('src'))).toEqual(before);
    expect((await copy(`/src/${wire('caf\xe9.txt')}`, `/far/${wire('one\xe9.txt')}`)).status).toBe(200);
    expect(fs.readFileSync(at('far', 'one\xe9.txt')).toString('latin1')).toBe('latin-1 name');
  });

  it('a move that fails midway (the file system is full) leaves the source whole and names the entry', async () => {
    const before = makeByteTree(at('src'));
    // Last in the walk (files before folders, folders in order), so the others were copied.
    fs.mkdirSync(at('src', 'd\xe9', '\xfflast'));
    fs.writeFileSync(at('src', 'd\xe9', '\xfflast', 'big\xe9.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    const whole = snapshot(at('src'));
    const res = await move('/src', '/small/src');
    expect(res.status).toBe(507);
    expect(res.text).toContain('could not move src/d\\xE9/\\xFFlast/big\\xE9.bin: no space left on device');
    expect(snapshot(at('src'))).toEqual(whole);
    expect(Object.keys(before).length).toBeGreaterThan(5);
    // Nothing half-copied is left on the full file system (no hidden temporary folder either).
    expect(fs.readdirSync(at('small'))).toEqual([]);
  });

  it('a single file that does not fit: the source stays, no temporary file is left', async () => {
    fs.mkdirSync(at('src'));
    fs.writeFileSync(at('src', 'huge\xff.bin'), Buffer.alloc(2 * 1024 * 1024, 1));
    const res = await move(`/src/${wire('huge\xff.bin')}`, '/small/huge.bin');
    expect(res.status).toBe(507);
    expect(res.text).toContain('huge\\xFF.bin');
    expect(fs.statSync(at('src', 'huge\xff.bin')).size).toBe(2 * 1024 * 1024);
    expect(fs.readdirSync(at('small'))).toEqual([]);
    const copied = await copy(`/src/${wire('huge\xff.bin')}`, '/small/huge.bin');
    expect(copied.status).toBe(507);
    expect(fs.readdirSync(at('small'))).toEqual([]);
  });

  it('a folder holding a FIFO is not moved across (a FIFO cannot be recreated): 409, source whole', async () => {
    const before = makeByteTree(at('src'));
    execFileSync('mkfifo', [path.join(fm.root, 'src', 'pipe')]);
    const res = await move('/src', '/far/src');
    expect(res.status).toBe(409);
    expect(res.text).toContain('src/pipe');
    expect(snapshot(at('src'))).toEqual({ ...before, pipe: 'special' });
    expect(fs.readdirSync(at('far'))).toEqual([]);
  });
});
