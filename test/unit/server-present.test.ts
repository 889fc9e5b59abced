/** The presenters (src/server/present.ts): what users, links and settings look like when they leave fm. */
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { presentSettings, presentShare, presentUser, presentUserForConsole, searchResultJson } from '../../src/server/present.ts';
import type { SearchResultDto } from '../../src/api/files.ts';
import type { ShareRecord } from '../../src/storage/repos/shares.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';

const HASH = '$2b$10$abcdefghijklmnopqrstuuJ0mJx7Y8JQh1mVYvA7b8c9d0e1f2g3h';

function user(over: Partial<UserRecord>): UserRecord {
  return {
    ...UserDataSchema.parse({ password: HASH, scope: '/home/x' }),
    sessionEpoch: 3,
    updatedAt: 1700000000000,
    keptSession: { jti: 'j', epoch: 3 },
    ...over,
  };
}

describe('presenters', () => {
  const admin = user({ id: 1, username: 'admin', perm: { ...user({}).perm, admin: true } });
  const bob = user({ id: 2, username: 'bob' });

  it('show a user without the password hash or bookkeeping; scopes only to admins', () => {
    for (const viewer of [admin, bob]) {
      const dto = presentUser(bob, viewer);
      expect(dto.password).toBe('');
      expect(dto.scope).toBe(viewer === admin ? '/home/x' : '');
      expect(dto).not.toHaveProperty('sessionEpoch');
      expect(JSON.stringify(dto)).not.toContain(HASH);
      expect(dto).not.toHaveProperty('updatedAt');
      expect(dto).not.toHaveProperty('keptSession');
    }
  });

  it('print a user on the console with every field but the password and bookkeeping', () => {
    const shown = presentUserForConsole(bob);
    expect(shown).toMatchObject({ id: 2, username: 'bob', scope: '/home/x' });
    for (const key of ['password', 'sessionEpoch', 'updatedAt', 'keptSession']) expect(shown).not.toHaveProperty(key);
  });

  it('show a link with hasPassword, never the hash, the token or where it points on disk', () => {
    const share: ShareRecord = {
      hash: 'AbCdEfGhIjKl',
      path: '/a',
      userID: 2,
      expire: 0,
      password_hash: HASH,
      token: 'secret-token',
      abs: '/srv/a',
      real: '/srv/a',
      created: 1,
    };
    expect(presentShare(share)).toEqual({ hash: 'AbCdEfGhIjKl', path: '/a', userID: 2, expire: 0, hasPassword: true });
    expect(presentShare({ ...share, password_hash: '', token: '' }, 'bob')).toEqual({
      hash: 'AbCdEfGhIjKl',
      path: '/a',
      userID: 2,
      expire: 0,
      hasPassword: false,
      username: 'bob',
    });
  });

  it('show the settings with the method in effect and without the reCAPTCHA secret', () => {
    const s = SettingsSchema.parse({ auth: { recaptcha: { host: 'https://r', key: 'k', secret: 'top-secret' } } });
    const dto = presentSettings(s, 'noauth');
    expect(dto.authMethod).toBe('noauth');
    expect(dto.auth.recaptcha).toEqual({ host: 'https://r', key: 'k' });
    expect(JSON.stringify(dto)).not.toContain('top-secret');
  });
});

describe('searchResultJson', () => {
  it('writes what JSON.stringify writes, for names that need escapes too', () => {
    const paths = ['a/b.txt', 'say "hi"\\x', 'tab\there\u0001', 'caf\u00e9/\u{1f600}.png', 'lone \ud800 half', ''];
    for (const path of paths) {
      for (const dto of [
        { dir: false, path, size: 12, modified: '2026-11-24T10:00:00.123Z', type: 'image' },
        { dir: true, path, size: 0, modified: '1970-01-01T00:00:00.000Z' },
      ] as SearchResultDto[]) {
        expect(searchResultJson(dto.dir, dto.path, dto.size, dto.modified, dto.type)).toBe(JSON.stringify(dto));
      }
    }
  });
});
