/** Folder listings: the JSON written from the scan equals JSON.stringify of the DTOs; order; times. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { Gate, type Access } from '../../src/services/files/gate.ts';
import { listFolder, listFolderJson } from '../../src/services/files/info.ts';
import { renderLargeListing } from '../../src/services/files/listing-large.ts';
import { compareNames, nameSortKey } from '../../src/api/files.ts';
import { isoTime } from '../../src/services/files/listing.ts';
import { makeTree } from '../helpers/files.ts';

let tmp: string;
let gate: Gate;
let access: Access;

beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-listing-')));
  makeTree(path.join(tmp, 'root'), {
    'file10.txt': 'x',
    'file9.txt': 'xx',
    'File2.txt': '',
    'quote"back\\slash.md': 'q',
    'new\nline.bin': 'n',
    'tab\there': '',
    'café.jpg': 'c',
    'élan.mp4': '',
    'emoji 😀.pdf': '',
    '.hidden': 'h',
    'no-extension': 'n',
    Zeta: {},
    alpha: { inner: 'i' },
    link: { link: 'file9.txt' },
    'dir-link': { link: 'alpha' },
    dangling: { link: 'missing' },
    escaping: { link: '/etc/hostname' },
    '.fm-partial-0123456789abcdef': 'partial',
  });
  execFileSync('mkfifo', [path.join(tmp, 'root', 'fifo')]);
  fs.utimesSync(path.join(tmp, 'root', 'file10.txt'), new Date('2001-02-03T04:05:06.789Z'), new Date('2001-02-03T04:05:06.789Z'));
  gate = new Gate(path.join(tmp, 'root'), []);
  const user = { ...UserDataSchema.parse({ username: 'u' }), sessionEpoch: 0, updatedAt: 0 };
  access = await gate.access(user, SettingsSchema.parse({}));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('listings', () => {
  for (const sorting of [
    { by: 'name', asc: true },
    { by: 'name', asc: false },
    { by: 'size', asc: true },
    { by: 'modified', asc: false },
    { by: 'other', asc: true },
  ]) {
    it(`JSON text equals the DTO's JSON (${sorting.by} ${sorting.asc ? 'asc' : 'desc'})`, async () => {
      const target = await gate.resolve(access, '/', 'read');
      const dto = await listFolder(gate, target, { sorting });
      expect((await listFolderJson(gate, target, { sorting })).toString('utf8')).toBe(JSON.stringify(dto));
      const paged = { sorting, offset: 2, limit: 3 };
      const pagedDto = await listFolder(gate, target, paged);
      expect(pagedDto.items).toHaveLength(3);
      expect(pagedDto.numTotal).toBe(dto.items.length);
      expect((await listFolderJson(gate, target, paged)).toString('utf8')).toBe(JSON.stringify(pagedDto));
    });
  }

  it('shows what it must and nothing else, folders first in natural order', async () => {
    const target = await gate.resolve(access, '/', 'read');
    const dto = await listFolder(gate, target, { sorting: { by: 'name', asc: true } });
    expect(dto.items.map((i) => i.name)).toEqual([
      'alpha',
      'dir-link',
      'Zeta',
      '.hidden',
      'café.jpg',
      'dangling',
      'élan.mp4',
      'emoji 😀.pdf',
      'fifo',
      'File2.txt',
      'file9.txt',
      'file10.txt',
      'link',
      'new\nline.bin',
      'no-extension',
      'quote"back\\slash.md',
      'tab\there',
    ]);
    const by = Object.fromEntries(dto.items.map((i) => [i.name, i]));
    expect(by.dangling).toMatchObject({ type: 'invalid_link', isSymlink: true, isDir: false });
    expect(by['dir-link']).toMatchObject({ isDir: true, isSymlink: true, type: '', size: 4096 });
    expect(by.link).toMatchObject({ isSymlink: true, type: 'blob', size: 2 }); // typed by its own name
    expect(by.fifo.type).toBe('blob');
    expect(by['café.jpg'].type).toBe('image');
    expect(by['file10.txt'].modified).toBe('2001-02-03T04:05:06.789Z');
    expect(dto.numDirs).toBe(3);
    expect(dto.numFiles).toBe(14);
  });
});

describe('the one name order', () => {
  it('lists names in the contract order (compareNames), which the UI uses too', async () => {
    const names = ['_x', '.hidden', 'a_b', 'a-b'];
    makeTree(path.join(tmp, 'root', 'order'), Object.fromEntries(names.map((n) => [n, ''])));
    const target = await gate.resolve(access, '/order', 'read');
    const asc = (await listFolder(gate, target, { sorting: { by: 'name', asc: true } })).items.map((i) => i.name);
    expect(asc).toEqual(['.hidden', '_x', 'a-b', 'a_b']);
    expect(asc).toEqual([...names].sort(compareNames));
    const desc = (await listFolder(gate, target, { sorting: { by: 'name', asc: false } })).items.map((i) => i.name);
    expect(desc).toEqual([...asc].reverse());
  });
});

describe('large folders (worker threads)', () => {
  it('render the same JSON as the main thread, in every order, with links and odd names', async () => {
    const dir = path.join(tmp, 'root', 'many');
    fs.mkdirSync(dir);
    for (let i = 0; i < 5000; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), 'x'.repeat(i % 7));
    makeTree(dir, {
      sub: {},
      Sub2: {},
      'Ärger 10.md': 'a',
      'Ärger 9.md': 'b',
      'quote"d.json': '{}',
      'ctl\u0001.bin': '',
      '\ud83d\ude00.png': '',
      README: 'r',
      '.env': 'e',
      // Extensions that differ from the folder's common one only in case or by a dot before it.
      'notes.TXT': 'n',
      'b..txt': 'b',
      '.txt': 't',
      'photo.JPG': '',
      'x.txt.gz': '',
      'zz-link': { link: 'f1.txt' },
      'zz-dirlink': { link: 'sub' },
      'zz-dangling': { link: 'missing' },
      'zz-escape': { link: '/etc' },
      '.fm-partial-00000000000000aa': 'p',
    });
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const target = await gate.resolve(access, '/many', 'read');
    const base = (await listFolder(gate, target, { sorting: { by: 'name', asc: true }, limit: 0 })) as unknown as Record<string, unknown>;
    delete base.items;
    delete base.numDirs;
    delete base.numFiles;
    delete base.sorting;
    delete base.numTotal;
    for (const sorting of [
      { by: 'name', asc: true },
      { by: 'name', asc: false },
    ]) {
      for (const paging of [{}, { offset: 1, limit: 3 }, { offset: 4990, limit: 100 }]) {
        const dto = await listFolder(gate, target, { sorting, ...paging });
        const rendered = await renderLargeListing(
          gate,
          target,
          base as never,
          sorting,
          (paging as { offset?: number }).offset,
          (paging as { limit?: number }).limit,
        );
        if (os.availableParallelism() > 1) expect(rendered).toBeDefined();
        if (rendered) expect(rendered.toString('utf8')).toBe(JSON.stringify(dto));
        expect((await listFolderJson(gate, target, { sorting, ...paging })).toString('utf8')).toBe(JSON.stringify(dto));
      }
    }
    const dto = await listFolder(gate, target, { sorting: { by: 'name', asc: true } });
    expect(dto.numDirs).toBe(3);
    expect(dto.items.slice(0, 3).map((i) => i.name)).toEqual(['sub', 'Sub2', 'zz-dirlink']);
    expect(dto.items.map((i) => i.name)).not.toContain('zz-escape');
    expect(dto.items.find((i) => i.name === 'zz-dangling')?.type).toBe('invalid_link');
    expect(dto.items.find((i) => i.name === 'pipe')?.type).toBe('blob');
    expect(dto.items.find((i) => i.name === 'README')?.type).toBe('text');
    expect(dto.items.find((i) => i.name === 'notes.TXT')?.type).toBe('text');
    expect(dto.items.find((i) => i.name === 'photo.JPG')?.type).toBe('image');
    for (const item of dto.items.filter((i) => /^f\d+\.txt$/.test(i.name))) expect(item.size).toBe(Number(item.name.slice(1, -4)) % 7);
  });
});

describe('names that are not UTF-8', () => {
  it('are listed escaped, in a folder whose own name is not UTF-8, alike in the workers and here', async () => {
    // "b\xE9d": the folder's path itself needs bytes, and so do some of its names.
    const dir = Buffer.concat([Buffer.from(path.join(tmp, 'root', 'b')), Buffer.of(0xe9), Buffer.from('d')]);
    const at = (...name: number[]) => Buffer.concat([dir, Buffer.from('/'), Buffer.from(name)]);
    fs.mkdirSync(dir);
    for (let i = 0; i < 4200; i++) fs.writeFileSync(Buffer.concat([dir, Buffer.from(`/f${i}.txt`)]), 'x'.repeat(i % 5));
    fs.writeFileSync(at(0x63, 0x61, 0x66, 0xe9), 'four'); // caf\xE9
    fs.mkdirSync(at(0x73, 0x75, 0x62, 0xff)); // sub\xFF
    fs.symlinkSync(Buffer.from([0x63, 0x61, 0x66, 0xe9]), at(0x6c, 0x80)); // l\x80 -> caf\xE9
    const target = await gate.resolve(access, '/b\uf7e9d', 'read');
    const sorting = { by: 'name', asc: true };
    const dto = await listFolder(gate, target, { sorting });
    const base = { ...dto } as Record<string, unknown>;
    for (const key of ['items', 'numDirs', 'numFiles', 'sorting', 'numTotal']) delete base[key];
    const rendered = await renderLargeListing(gate, target, base as never, sorting);
    if (os.availableParallelism() > 1) expect(rendered).toBeDefined();
    if (rendered) expect(rendered.toString('utf8')).toBe(JSON.stringify(dto));
    const by = Object.fromEntries(dto.items.map((i) => [i.name, i]));
    expect(by['caf\uf7e9']).toMatchObject({ path: '/b\uf7e9d/caf\uf7e9', size: 4 });
    expect(by['sub\uf7ff']).toMatchObject({ isDir: true });
    expect(by['l\uf780']).toMatchObject({ isSymlink: true, size: 4 });
    expect(by['f4199.txt'].size).toBe(4);
    expect(dto.items).toHaveLength(4203);
  });
});

describe('helpers', () => {
  it('isoTime matches Date#toISOString', () => {
    for (const ms of [0, 1.5, 999.999, 86_399_999.9, 1_700_000_000_123.456, -1, -86_400_001, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_001]) {
      expect(isoTime(ms), String(ms)).toBe(new Date(Math.floor(ms)).toISOString());
    }
  });

  it('nameSortKey orders numbers by value and ignores case and accents', () => {
    const sorted = ['b10', 'b9', 'B2', 'b02x', 'a', 'É', 'e'].sort((x, y) => (nameSortKey(x) < nameSortKey(y) ? -1 : nameSortKey(x) > nameSortKey(y) ? 1 : 0));
    expect(sorted).toEqual(['a', 'B2', 'b02x', 'b9', 'b10', 'É', 'e']);
  });
});
