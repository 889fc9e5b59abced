/**
 * Listings answered from the entries kept while a folder's watch has seen no change
 * (services/files/disk/folder-watch.ts): a change made outside fm just before a request is in
 * that request's answer, at once (the design orders it: no polling here); watches are bounded and
 * closed on eviction; a folder that cannot be watched is listed without keeping anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compareNames } from '../../src/api/files.ts';
import { closeAllFolderWatches, watchedFolderCount, watchFoldersWith } from '../../src/services/files/disk/folder-watch.ts';
import { decodeName } from '../../src/services/files/disk/names.ts';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';

interface Item {
  name: string;
  size: number;
  modified: string;
  mode: number;
  isDir: boolean;
  isSymlink: boolean;
}
interface Listing {
  items: Item[];
}

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  admin = await adminClient(fm);
}, 60_000);
afterAll(() => fm.stop());
afterEach(() => watchFoldersWith({}));

let folders = 0;
/** A new folder of files under the root, listed twice (so the second answer came from kept entries). */
async function listedFolder(files: Record<string, string>): Promise<{ dir: string; url: string }> {
  const name = `w${folders++}`;
  const dir = path.join(fm.root, name);
  fs.mkdirSync(dir);
  for (const [f, body] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), body);
  const url = `/api/resources/${name}`;
  await admin.json<Listing>(url);
  await admin.json<Listing>(url);
  return { dir, url };
}

async function itemsOf(url: string): Promise<Map<string, Item>> {
  const listing = await admin.json<Listing>(url);
  return new Map(listing.items.map((i) => [i.name, i]));
}

/** The inode numbers the process's inotify instances watch (from /proc/self/fdinfo). */
function inotifyWatchedInodes(): Set<number> {
  const inodes = new Set<number>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let link: string;
    try {
      link = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (link !== 'anon_inode:inotify') continue;
    for (const m of fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(/inotify wd:\S+ ino:([0-9a-f]+)/g)) inodes.add(Number.parseInt(m[1], 16));
  }
  return inodes;
}

describe('listings kept while the folder is watched', () => {
  it('show a file changed outside fm just before the request: created, grown, touched, chmod’ed, replaced, renamed, deleted', async () => {
    const { dir, url } = await listedFolder({ 'a.txt': 'a', 'b.txt': 'bb', 'c.txt': 'ccc', 'd.txt': 'dddd' });
    expect(watchedFolderCount(), 'the test folder is on a local file system that is watched').toBeGreaterThan(0);

    fs.writeFileSync(path.join(dir, 'new.txt'), 'new!');
    expect((await itemsOf(url)).get('new.txt')?.size).toBe(4);

    fs.appendFileSync(path.join(dir, 'a.txt'), 'more');
    expect((await itemsOf(url)).get('a.txt')?.size).toBe(5);

    const when = new Date('2001-02-03T04:05:06.789Z');
    fs.utimesSync(path.join(dir, 'b.txt'), when, when);
    expect((await itemsOf(url)).get('b.txt')?.modified).toBe(when.toISOString());

    fs.chmodSync(path.join(dir, 'c.txt'), 0o600);
    expect(((await itemsOf(url)).get('c.txt')?.mode ?? 0) & 0o777).toBe(0o600);

    fs.writeFileSync(path.join(dir, 'tmp'), 'replacement');
    fs.renameSync(path.join(dir, 'tmp'), path.join(dir, 'd.txt'));
    expect((await itemsOf(url)).get('d.txt')?.size).toBe('replacement'.length);

    fs.renameSync(path.join(dir, 'new.txt'), path.join(dir, 'renamed.txt'));
    let items = await itemsOf(url);
    expect(items.has('new.txt')).toBe(false);
    expect(items.get('renamed.txt')?.size).toBe(4);

    fs.rmSync(path.join(dir, 'renamed.txt'));
    items = await itemsOf(url);
    expect(items.has('renamed.txt')).toBe(false);
    expect([...items.keys()].sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
  });

  it('show changes the folder’s watch does not see: inside a sub-folder, through another hard link, and behind a link', async () => {
    const { dir, url } = await listedFolder({ 'plain.txt': 'p' });
    const sub = path.join(dir, 'sub');
    fs.mkdirSync(sub);
    const elsewhere = tempDir();
    fs.writeFileSync(path.join(elsewhere, 'shared.txt'), 's');
    fs.linkSync(path.join(elsewhere, 'shared.txt'), path.join(dir, 'hard.txt'));
    fs.writeFileSync(path.join(sub, 'target.txt'), 't');
    fs.symlinkSync('sub/target.txt', path.join(dir, 'link.txt'));
    await itemsOf(url);
    const before = (await itemsOf(url)).get('sub')?.modified;

    // Events inside the sub-folder reach the sub-folder's watchers only.
    fs.writeFileSync(path.join(sub, 'inner.txt'), 'x');
    const after = fs.statSync(sub).mtime.toISOString();
    expect(after).not.toBe(before);
    // Within the millisecond: a time in nanoseconds can round either way on the way to ms (double vs bigint).
    const listed = (await itemsOf(url)).get('sub')!.modified;
    expect(listed).not.toBe(before);
    expect(Math.abs(Date.parse(listed) - Date.parse(after))).toBeLessThanOrEqual(1);

    fs.appendFileSync(path.join(elsewhere, 'shared.txt'), 'through the other link');
    expect((await itemsOf(url)).get('hard.txt')?.size).toBe(1 + 'through the other link'.length);

    fs.writeFileSync(path.join(sub, 'target.txt'), 'longer target');
    expect((await itemsOf(url)).get('link.txt')?.size).toBe('longer target'.length);
    fs.rmSync(elsewhere, { recursive: true });
  });

  it('trust kept entries for a bounded time: an in-place write through a hard link made later shows once it passes', async () => {
    let clock = 1_000_000;
    watchFoldersWith({ now: () => clock, maxAgeMs: 2000 });
    const { dir, url } = await listedFolder({ 'f.txt': 'one' });
    const elsewhere = tempDir();
    // Linked after the entry was kept, then written in place through the other folder: no event reaches this folder's watch.
    fs.linkSync(path.join(dir, 'f.txt'), path.join(elsewhere, 'f.txt'));
    fs.appendFileSync(path.join(elsewhere, 'f.txt'), ' more');
    clock += 2001;
    expect((await itemsOf(url)).get('f.txt')?.size).toBe('one more'.length);
    fs.rmSync(elsewhere, { recursive: true });
  });

  it('show a change to a name that is not UTF-8', async () => {
    const { dir, url } = await listedFolder({});
    const name = Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]);
    fs.writeFileSync(name, 'one');
    expect((await itemsOf(url)).get('caf\uf7e9.txt')?.size).toBe(3);
    await itemsOf(url);
    fs.appendFileSync(name, ' two');
    expect((await itemsOf(url)).get('caf\uf7e9.txt')?.size).toBe(7);
  });

  it('watch at most the configured number of folders, closing the least recently listed one’s watch', async () => {
    watchFoldersWith({ maxFolders: 2 });
    const a = await listedFolder({ 'f.txt': 'a' });
    const b = await listedFolder({ 'f.txt': 'b' });
    const aInode = fs.statSync(a.dir).ino;
    expect(inotifyWatchedInodes().has(aInode)).toBe(true);
    await listedFolder({ 'f.txt': 'c' });
    expect(watchedFolderCount()).toBe(2);
    expect(inotifyWatchedInodes().has(aInode)).toBe(false);
    expect(inotifyWatchedInodes().has(fs.statSync(b.dir).ino)).toBe(true);

    fs.writeFileSync(path.join(a.dir, 'f.txt'), 'changed while not watched');
    expect((await itemsOf(a.url)).get('f.txt')?.size).toBe('changed while not watched'.length);
  });

  it('read again only the entry an event names: a folder under constant change answers its other entries from what is kept', async () => {
    // Events for b.txt never arrive, and the clock stands still: b.txt's old size can only come
    // from what was kept, and a.txt's event must not have forgotten it.
    watchFoldersWith({
      now: () => 0,
      watch: (dir, onChange) =>
        fs.watch(dir, { persistent: false, encoding: 'buffer' }, (event, name) => {
          if (name?.toString() !== 'b.txt') onChange(event, name);
        }),
    });
    const { dir, url } = await listedFolder({ 'a.txt': 'one', 'b.txt': 'one' });
    fs.appendFileSync(path.join(dir, 'b.txt'), ' two');
    fs.appendFileSync(path.join(dir, 'a.txt'), ' two');
    const items = await itemsOf(url);
    expect(items.get('a.txt')?.size).toBe(7);
    expect(items.get('b.txt')?.size).toBe(3);
  });

  it('forget a folder’s entries when an entry was replaced and the event was lost (inotify queue overflow)', async () => {
    watchFoldersWith({ watch: (dir) => fs.watch(dir, { persistent: false }, () => {}) }); // events never arrive
    const { dir, url } = await listedFolder({ 'f.txt': 'one' });
    const before = fs.statSync(dir).ctimeMs;
    // Replaced until the folder's ctime moves on (a coarse kernel clock can keep it within a tick).
    for (let i = 0; fs.statSync(dir).ctimeMs === before; i++) {
      fs.writeFileSync(path.join(dir, 'next'), `replacement ${i}`);
      fs.renameSync(path.join(dir, 'next'), path.join(dir, 'f.txt'));
    }
    const size = fs.statSync(path.join(dir, 'f.txt')).size;
    expect((await itemsOf(url)).get('f.txt')?.size).toBe(size);
  });

  it('list a folder that cannot be watched with an lstat per entry, keeping nothing', async () => {
    watchFoldersWith({
      watch: () => {
        throw Object.assign(new Error('inotify watch limit reached'), { code: 'ENOSPC' });
      },
    });
    const { dir, url } = await listedFolder({ 'f.txt': 'one' });
    expect(watchedFolderCount()).toBe(0);
    fs.appendFileSync(path.join(dir, 'f.txt'), ' two');
    expect((await itemsOf(url)).get('f.txt')?.size).toBe(7);
    closeAllFolderWatches();
  });

  it('stop keeping a folder whose watch reports an error', async () => {
    const watchers: fs.FSWatcher[] = [];
    watchFoldersWith({ watch: (dir, onChange) => watchers[watchers.push(fs.watch(dir, { persistent: false }, onChange)) - 1] });
    const { dir, url } = await listedFolder({ 'f.txt': 'one' });
    expect(watchedFolderCount()).toBe(1);
    watchers[0].emit('error', new Error('the watch broke'));
    expect(watchedFolderCount()).toBe(0);
    expect(inotifyWatchedInodes().has(fs.statSync(dir).ino)).toBe(false);
    fs.appendFileSync(path.join(dir, 'f.txt'), ' two');
    expect((await itemsOf(url)).get('f.txt')?.size).toBe(7);
  });
});

/** The folder as a fresh read gives it, in the listing's order: folders first, each part by name. */
function freshListing(dir: string): { names: string[]; dirs: Set<string>; numDirs: number; numFiles: number } {
  const entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }).map((e) => ({ name: decodeName(e.name), isDir: e.isDirectory() }));
  const dirs = entries
    .filter((e) => e.isDir)
    .map((e) => e.name)
    .sort(compareNames);
  const files = entries
    .filter((e) => !e.isDir)
    .map((e) => e.name)
    .sort(compareNames);
  return { names: dirs.concat(files), dirs: new Set(dirs), numDirs: dirs.length, numFiles: files.length };
}

describe('a folder’s remembered names patched by its watch (folder-names.ts)', () => {
  it('list every page exactly as a fresh read after creates, deletes, renames and kind changes made outside fm', async () => {
    const name = `names${folders++}`;
    const dir = path.join(fm.root, name);
    fs.mkdirSync(dir);
    for (let i = 0; i < 700; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), '');
    fs.mkdirSync(path.join(dir, 'sub'));
    const raw = (s: string) => Buffer.from(`${dir}/${s}`, 'latin1');
    const check = async (step: string) => {
      const fresh = freshListing(dir);
      const pages: string[] = [];
      for (let offset = 0; offset < fresh.names.length; offset += 300) {
        const page = await admin.json<Listing & { numDirs: number; numFiles: number }>(`/api/resources/${name}?offset=${offset}&limit=300`);
        expect({ numDirs: page.numDirs, numFiles: page.numFiles }, step).toEqual({ numDirs: fresh.numDirs, numFiles: fresh.numFiles });
        for (const item of page.items) expect(item.isDir, `${step}: ${item.name}`).toBe(fresh.dirs.has(item.name));
        pages.push(...page.items.map((i) => i.name));
      }
      expect(pages, step).toEqual(fresh.names);
      const full = await admin.json<Listing>(`/api/resources/${name}`);
      expect(
        full.items.map((i) => i.name),
        step,
      ).toEqual(fresh.names);
    };
    await check('at rest');
    await check('remembered');
    const steps: Array<[string, () => void]> = [
      ['created', () => fs.writeFileSync(path.join(dir, 'f55.5.txt'), '')],
      ['deleted', () => fs.rmSync(path.join(dir, 'f10.txt'))],
      ['renamed', () => fs.renameSync(path.join(dir, 'f20.txt'), path.join(dir, 'A-first.txt'))],
      ['renamed over another', () => fs.renameSync(path.join(dir, 'f21.txt'), path.join(dir, 'f22.txt'))],
      ['folder made', () => fs.mkdirSync(path.join(dir, 'zz-dir'))],
      [
        'file replaced by a folder',
        () => {
          fs.rmSync(path.join(dir, 'f30.txt'));
          fs.mkdirSync(path.join(dir, 'f30.txt'));
        },
      ],
      ['folder removed', () => fs.rmdirSync(path.join(dir, 'sub'))],
      ['not UTF-8 created', () => fs.writeFileSync(raw('caf\xe9.txt'), '')],
      ['not UTF-8 renamed', () => fs.renameSync(raw('caf\xe9.txt'), raw('\xff-first'))],
      [
        'many at once',
        () => {
          for (let i = 100; i < 160; i++) fs.rmSync(path.join(dir, `f${i}.txt`));
          for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(dir, `g${i}.txt`), '');
        },
      ],
      ['not UTF-8 deleted', () => fs.rmSync(raw('\xff-first'))],
    ];
    for (const [step, change] of steps) {
      change();
      await check(step);
    }
  });
});
