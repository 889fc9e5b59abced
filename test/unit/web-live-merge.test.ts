/** A live batch applied to a shown folder: entries put where the server lists them, removed names gone. */
import { describe, expect, it } from 'vitest';
import type { FileInfoDto } from '../../src/api/files.ts';
import { applyChange } from '../../web/api/live-merge.ts';
import type { Resource } from '../../web/api/resources.ts';

const item = (name: string, isDir = false, size = 1, modified = '2024-01-01T00:00:00Z'): FileInfoDto => ({
  path: `/d/${name}`,
  name,
  size,
  extension: '',
  modified,
  mode: 0,
  isDir,
  isSymlink: false,
  type: isDir ? '' : 'text',
});

const folder = (items: FileInfoDto[], by = 'name', asc = true): Resource => ({
  ...item('d', true),
  path: '/d',
  items,
  numDirs: items.filter((i) => i.isDir).length,
  numFiles: items.filter((i) => !i.isDir).length,
  sorting: { by, asc },
});

const names = (r: Resource) => r.items!.map((i) => i.name);

describe('applyChange', () => {
  it('inserts in name order, folders first, natural order of numbers', () => {
    const r = applyChange(folder([item('b', true), item('a2'), item('a10')]), { items: [item('a3'), item('c', true), item('0')], removed: [] });
    expect(names(r)).toEqual(['b', 'c', '0', 'a2', 'a3', 'a10']);
    expect(r.numDirs).toBe(2);
    expect(r.numFiles).toBe(4);
  });

  it('a rename is a removal and an insertion; a changed entry replaces its old self', () => {
    const before = folder([item('a'), item('b', false, 1), item('c')]);
    const r = applyChange(before, { items: [item('z'), item('b', false, 99)], removed: ['a'] });
    expect(names(r)).toEqual(['b', 'c', 'z']);
    expect(r.items![0].size).toBe(99);
    expect(names(before)).toEqual(['a', 'b', 'c']);
  });

  it('follows the folder’s sorting: by size descending, ties by name', () => {
    const r = applyChange(folder([item('big', false, 30), item('mid', false, 20), item('small', false, 10)], 'size', false), {
      items: [item('a-mid', false, 20), item('huge', false, 50)],
      removed: [],
    });
    expect(names(r)).toEqual(['huge', 'big', 'a-mid', 'mid', 'small']);
  });

  it('a changed folder keeps the total size shown (a batch does not carry it)', () => {
    const r = applyChange(folder([{ ...item('photos', true), dirSize: 1234 }, item('a')]), { items: [item('photos', true)], removed: [] });
    expect(r.items![0]).toMatchObject({ name: 'photos', dirSize: 1234 });
  });

  it('by modified ascending', () => {
    const r = applyChange(folder([item('old', false, 1, '2020-01-01T00:00:00Z'), item('new', false, 1, '2024-01-01T00:00:00Z')], 'modified'), {
      items: [item('mid', false, 1, '2022-01-01T00:00:00Z')],
      removed: [],
    });
    expect(names(r)).toEqual(['old', 'mid', 'new']);
  });
});
