/**
 * SYML: the folder handles of disk/ with folders swapped for symlinks between steps. A handle
 * pins the folder it checked; recursive delete, copy and move reach children through opened
 * parents and never follow a link. The swaps happen inside the scope's `permits` callback,
 * which every operation calls right before it touches an entry: the exact moment a racing
 * local user would need. Nothing outside the root may change.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError } from '../../src/errors.ts';
import { DirHandle, setProcFdForTests, withDir, type Scope } from '../../src/services/files/disk/handle.ts';
import { PARTIAL_PREFIX, PartialJournal } from '../../src/services/files/disk/partials.ts';
import { placeFile } from '../../src/services/files/disk/place.ts';
import { copyEntry, moveEntry, removeEntry } from '../../src/services/files/disk/tree.ts';
import { listTree, makeTree } from '../helpers/files.ts';

let tmp: string;
let root: string;
let outside: string;
/** Called before every entry operation (with the entry's real path); may swap things. */
let onTouch: (real: string) => void;

const scope: Scope = {
  get rootReal() {
    return root;
  },
  permits(real) {
    onTouch(real);
    return real.startsWith(`${root}/`) && !real.includes('/denied');
  },
};

/** Renames `folder` away and puts a symlink to `to` in its place (once). */
function swapOnce(folder: string, to: string): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fs.renameSync(folder, `${folder}-away`);
    fs.symlinkSync(to, folder);
  };
}

function outsideIntact() {
  expect(listTree(outside)).toEqual(['keep.txt', 'sub/', 'sub/deep.txt']);
  expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('outside');
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-handle-')));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'outside');
  makeTree(tmp, { root: {}, outside: { 'keep.txt': 'outside', sub: { 'deep.txt': 'deep' } } });
  onTouch = () => {};
});
afterEach(() => {
  setProcFdForTests(undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a handle stays on the folder it checked', () => {
  it('operations after its path was swapped for a link land in the original folder', async () => {
    makeTree(root, { d: { 'f.txt': 'inside' } });
    const d = path.join(root, 'd');
    await withDir(d, scope, async (dir) => {
      fs.renameSync(d, `${d}-away`);
      fs.symlinkSync(outside, d);
      await dir.unlink('f.txt');
      await placeFile(dir, 'new.txt', { kind: 'bytes', data: 'written' }, { override: false, mode: 0o640 });
      // A child opened now is refused: its folder is no longer where the gate checked it, so
      // the rules would be judged on the wrong path.
      await expect(dir.makeChild('made', 0o750)).rejects.toBeInstanceOf(ForbiddenError);
    });
    outsideIntact();
    expect(listTree(`${d}-away`)).toEqual(['made/', 'new.txt']);
  });

  it('refuses to open a folder reached through a link that was swapped in', async () => {
    makeTree(root, { a: { d: {} } });
    fs.renameSync(path.join(root, 'a'), path.join(root, 'a-away'));
    fs.symlinkSync(tmp, path.join(root, 'a'));
    fs.mkdirSync(path.join(tmp, 'd'));
    // root/a/d now leads to tmp/d: the descriptor's real location is not the one asked for.
    await expect(DirHandle.open(path.join(root, 'a', 'd'), scope)).rejects.toBeInstanceOf(ForbiddenError);
    // A link as the last component is never opened.
    fs.symlinkSync(outside, path.join(root, 'link'));
    await expect(DirHandle.open(path.join(root, 'link'), scope)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(DirHandle.open(outside, scope)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('checks the rules on the real location of every entry it touches', async () => {
    makeTree(root, { denied: 'x', ok: 'y' });
    await withDir(root, scope, async (dir) => {
      await expect(dir.unlink('denied')).rejects.toBeInstanceOf(ForbiddenError);
      await expect(placeFile(dir, 'denied', { kind: 'bytes', data: 'z' }, { override: true, mode: 0o640 })).rejects.toBeInstanceOf(ForbiddenError);
      await expect(dir.unlink('../outside/keep.txt')).rejects.toMatchObject({ status: 400 });
    });
    expect(fs.readFileSync(path.join(root, 'denied'), 'utf8')).toBe('x');
    outsideIntact();
  });

  it('without /proc it re-checks the folder before each operation', async () => {
    setProcFdForTests(false);
    makeTree(root, { d: { 'f.txt': 'inside' } });
    const d = path.join(root, 'd');
    await withDir(d, scope, async (dir) => {
      await placeFile(dir, 'ok.txt', { kind: 'bytes', data: 'fine' }, { override: false, mode: 0o640 });
      fs.renameSync(d, `${d}-away`);
      fs.symlinkSync(outside, d);
      await expect(dir.unlink('keep.txt')).rejects.toBeInstanceOf(ForbiddenError);
      await expect(placeFile(dir, 'x.txt', { kind: 'bytes', data: 'pwned' }, { override: false, mode: 0o640 })).rejects.toBeInstanceOf(ForbiddenError);
    });
    outsideIntact();
    expect(listTree(`${d}-away`)).toEqual(['f.txt', 'ok.txt']);
  });
});

describe('recursive operations never follow a folder swapped for a link mid-walk', () => {
  it('delete: a subfolder swapped for a link to outside is removed as a link', async () => {
    makeTree(root, { t: { a: { 'a.txt': 'a' }, s: { 'x.txt': 'x', deeper: { 'y.txt': 'y' } }, 'z.txt': 'z' } });
    const swap = swapOnce(path.join(root, 't', 's'), outside);
    onTouch = (real) => {
      if (real === path.join(root, 't', 's')) swap();
    };
    // The renamed-away folder makes t non-empty at the end, so the delete reports an error.
    await withDir(root, scope, (dir) => removeEntry(dir, 't')).catch(() => {});
    outsideIntact();
    expect(fs.existsSync(path.join(root, 't', 's'))).toBe(false);
    expect(listTree(path.join(root, 't'))).toEqual(['s-away/', 's-away/deeper/', 's-away/deeper/y.txt', 's-away/x.txt']);
  });

  it('delete: a folder swapped while its entries are being removed is emptied through its handle', async () => {
    makeTree(root, { t: { s: { 'x.txt': 'x', 'w.txt': 'w', deeper: { 'y.txt': 'y' } } } });
    const swap = swapOnce(path.join(root, 't', 's'), outside);
    onTouch = (real) => {
      if (real.startsWith(`${path.join(root, 't', 's')}/`)) swap();
    };
    // The walk is inside s when s is renamed and replaced by a link: it goes on in the real s
    // (now s-away) through its handle, refuses to open s/deeper (s moved: the rules would be
    // judged on the wrong path), and never touches the link's target.
    await expect(withDir(root, scope, (dir) => removeEntry(dir, 't'))).rejects.toBeInstanceOf(ForbiddenError);
    outsideIntact();
    expect(listTree(path.join(root, 't'))).toEqual(['s', 's-away/', 's-away/deeper/', 's-away/deeper/y.txt']);
    expect(fs.lstatSync(path.join(root, 't', 's')).isSymbolicLink()).toBe(true);
  });

  it('copy: a source subfolder swapped for a link copies nothing from outside', async () => {
    makeTree(root, { src: { a: { 'a.txt': 'a' }, s: { 'x.txt': 'x' } } });
    const swap = swapOnce(path.join(root, 'src', 's'), outside);
    onTouch = (real) => {
      if (real === path.join(root, 'src', 's')) swap();
    };
    await withDir(root, scope, (dir) => copyEntry(dir, 'src', dir, 'dst', false));
    outsideIntact();
    const copied = listTree(path.join(root, 'dst'));
    expect(copied).not.toContain('s/keep.txt');
    expect(copied).toContain('a/a.txt');
    // The swapped-in link was recreated as a link (never followed).
    if (copied.includes('s')) expect(fs.lstatSync(path.join(root, 'dst', 's')).isSymbolicLink()).toBe(true);
  });

  it('copy: a destination folder swapped for a link receives nothing outside', async () => {
    makeTree(root, { src: { 'a.txt': 'a', 'b.txt': 'b' }, dst: {} });
    const swap = swapOnce(path.join(root, 'dst'), outside);
    onTouch = (real) => {
      if (real === path.join(root, 'dst', 'src')) swap();
    };
    const copy = withDir(root, scope, async (dir) => {
      await withDir(path.join(root, 'dst'), scope, (to) => copyEntry(dir, 'src', to, 'src', false));
    });
    // The new folder is made through the handle (in dst-away), refused when opened, and removed.
    await expect(copy).rejects.toBeInstanceOf(ForbiddenError);
    outsideIntact();
    expect(listTree(path.join(root, 'dst-away'))).toEqual([]);
  });

  it('move into a folder swapped for a link lands in the real folder', async () => {
    makeTree(root, { f: 'moved', into: {} });
    const swap = swapOnce(path.join(root, 'into'), outside);
    await withDir(root, scope, async (dir) => {
      await withDir(path.join(root, 'into'), scope, async (to) => {
        swap();
        await moveEntry(dir, 'f', to, 'f', false);
      });
    });
    outsideIntact();
    expect(fs.readFileSync(path.join(root, 'into-away', 'f'), 'utf8')).toBe('moved');
  });
});

describe('placeFile: one function, one set of conflict rules', () => {
  it('no override: an existing name is a 409 and stays untouched; no temporary file is left', async () => {
    makeTree(root, { 'a.txt': 'old' });
    await withDir(root, scope, async (dir) => {
      await expect(placeFile(dir, 'a.txt', { kind: 'bytes', data: 'new' }, { override: false, mode: 0o640 })).rejects.toBeInstanceOf(ConflictError);
    });
    expect(fs.readdirSync(root)).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('old');
  });

  it('override replaces a file keeping its mode, a link (not its target), never a folder', async () => {
    makeTree(root, { 'a.txt': 'old', d: {}, l: { link: path.join(outside, 'keep.txt') } });
    fs.chmodSync(path.join(root, 'a.txt'), 0o600);
    await withDir(root, scope, async (dir) => {
      await placeFile(dir, 'a.txt', { kind: 'stream', stream: Readable.from([Buffer.from('new')]) }, { override: true, mode: 0o644, keepReplacedMode: true });
      await placeFile(dir, 'l', { kind: 'bytes', data: 'replaced link' }, { override: true, mode: 0o644 });
      await expect(placeFile(dir, 'd', { kind: 'bytes', data: 'x' }, { override: true, mode: 0o644 })).rejects.toBeInstanceOf(ConflictError);
    });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('new');
    expect(fs.statSync(path.join(root, 'a.txt')).mode & 0o777).toBe(0o600);
    expect(fs.lstatSync(path.join(root, 'l')).isFile()).toBe(true);
    outsideIntact();
    expect(fs.readdirSync(root).filter((n) => n.startsWith(PARTIAL_PREFIX))).toEqual([]);
  });

  it('a name that is not UTF-8 is written byte-exact', async () => {
    const name = 'caf\uf7e9.txt'; // the byte 0xE9 alone (Latin-1 é): not UTF-8
    await withDir(root, scope, (dir) => placeFile(dir, name, { kind: 'bytes', data: 'latin1' }, { override: false, mode: 0o640 }));
    const names = fs.readdirSync(root, { encoding: 'buffer' });
    expect(names).toEqual([Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74])]);
  });
});

describe('the journal of temporary files', () => {
  it('a sweep removes the temporary files of a run that is over, and keeps those a write holds', async () => {
    const journals = path.join(tmp, 'journals');
    const server: Scope = { rootReal: root, permits: (real) => real.startsWith(`${root}/`) };
    makeTree(root, { d: {} });
    // A run that died: its journal names root/d, where it left a file and a folder.
    fs.mkdirSync(journals);
    const deadRun = '0badc0de';
    fs.writeFileSync(path.join(journals, `999999999-${deadRun}.log`), `${JSON.stringify(path.join(root, 'd'))}\n`);
    makeTree(path.join(root, 'd'), { [`${PARTIAL_PREFIX}${deadRun}-1`]: 'half', [`${PARTIAL_PREFIX}${deadRun}-2`]: { 'x.txt': 'half' }, 'real.txt': 'keep' });
    const journal = new PartialJournal(journals, server);
    const held = await journal.acquire(path.join(root, 'd'));
    fs.writeFileSync(path.join(root, 'd', held.name), 'in flight');
    expect(await journal.sweep()).toBe(2);
    expect(fs.readdirSync(path.join(root, 'd')).sort()).toEqual([held.name, 'real.txt'].sort());
    expect(fs.readdirSync(journals)).toEqual([`${process.pid}-${journal.run}.log`]);
    // A held file whose removal failed is retried by the next sweep.
    held.release(true);
    expect(await journal.sweep()).toBe(1);
    expect(fs.readdirSync(path.join(root, 'd'))).toEqual(['real.txt']);
    await journal.close();
    expect(fs.readdirSync(journals)).toEqual([]);
  });
});
