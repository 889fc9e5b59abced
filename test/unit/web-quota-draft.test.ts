/** The quota fields of the user form: sizes as typed, blank for none, round trips, what a save sends. */
import { describe, expect, it } from 'vitest';
import { changedFields, defaultsData, draftFrom, quotaFilesFromText, quotaFromText, userData } from '../../web/lib/userDraft.ts';
import { UserDefaultsSchema } from '../../src/schemas/settings.ts';

const perm = { admin: false, execute: false, create: true, rename: false, modify: false, delete: false, share: false, download: true };
const user = (quota: number, quotaFiles: number) => draftFrom({ username: 'ann', scope: '/ann', locale: 'en', perm, commands: [], quota, quotaFiles });

describe('quota fields', () => {
  it('read a size or bytes; blank is no quota; anything else is NaN', () => {
    expect(quotaFromText('10GB')).toBe(10 * 1024 ** 3);
    expect(quotaFromText(' 1.5g ')).toBe(1.5 * 1024 ** 3);
    expect(quotaFromText('4096')).toBe(4096);
    expect(quotaFromText('')).toBe(0);
    expect(quotaFromText('ten')).toBeNaN();
    expect(quotaFilesFromText('100000')).toBe(100_000);
    expect(quotaFilesFromText(' ')).toBe(0);
    expect(quotaFilesFromText('1.5')).toBeNaN();
    expect(quotaFilesFromText('-1')).toBeNaN();
  });

  it('show a stored quota as a size that reads back to the same bytes, and none as blank', () => {
    const d = user(1.5 * 1024 ** 3, 5000);
    expect([d.quota, d.quotaFiles]).toEqual(['1.5GB', '5000']);
    expect(userData(d)).toMatchObject({ quota: 1.5 * 1024 ** 3, quotaFiles: 5000 });
    expect([user(0, 0).quota, user(0, 0).quotaFiles]).toEqual(['', '']);
  });

  it('a changed quota is a changed field; the same quota typed differently is not', () => {
    const before = user(1024 ** 3, 0);
    expect(changedFields(before, { ...before, quota: '1GiB' })).toEqual([]);
    expect(changedFields(before, { ...before, quota: '2GB', quotaFiles: '7' })).toEqual(['quota', 'quotaFiles']);
  });

  it('the new-user defaults carry the quotas', () => {
    const defaults = UserDefaultsSchema.parse({});
    expect([defaults.quota, defaults.quotaFiles]).toEqual([0, 0]);
    const d = { ...draftFrom(defaults), quota: '10GB', quotaFiles: '100' };
    expect(defaultsData(d, defaults)).toMatchObject({ quota: 10 * 1024 ** 3, quotaFiles: 100 });
  });
});
