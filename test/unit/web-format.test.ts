import { describe, expect, it } from 'vitest';
import { formatExact, formatModified, formatRelative, formatSize, NO_DATE } from '../../web/lib/format.ts';
import { decodeToken, isExpired } from '../../web/lib/jwt.ts';

describe('sizes', () => {
  it('uses binary units (a megabyte is 1048576 bytes)', () => {
    expect(formatSize(0)).toBe('0 B');
    expect(formatSize(1023)).toBe('1,023 B');
    expect(formatSize(1024)).toBe('1 KiB');
    expect(formatSize(1536)).toBe('1.5 KiB');
    expect(formatSize(1048576)).toBe('1 MiB');
    expect(formatSize(5 * 1024 ** 3)).toBe('5 GiB');
    expect(formatSize(2 * 1024 ** 4)).toBe('2 TiB');
  });

  it('formats the number per locale', () => {
    expect(formatSize(1536, 'de')).toBe('1,5 KiB');
    expect(formatSize(1536, 'ar')).toMatch(/KiB$/);
  });

  it('gives nothing for impossible sizes', () => {
    expect(formatSize(-1)).toBe('');
    expect(formatSize(Number.NaN)).toBe('');
  });
});

describe('dates', () => {
  const now = Date.parse('2024-06-15T12:00:00Z');
  it('are relative by default and exact with the dateFormat setting', () => {
    expect(formatRelative(new Date(now - 3 * 3600_000), 'en', now)).toBe('3 hours ago');
    expect(formatRelative(new Date(now - 10_000), 'en', now)).toBe('now');
    expect(formatRelative(new Date(now - 2 * 86400_000), 'de', now)).toBe('vorgestern');
    expect(formatModified('2024-06-15T09:00:00Z', 'en', true, now)).toMatch(/2024/);
    expect(formatModified('not a date', 'en', false, now)).toBe('');
  });

  it('show a dash, never throw, for a date no browser can show (an old share 999999999 days out)', () => {
    const absurd = new Date(Math.ceil(now / 1000 + 999999999 * 86400) * 1000);
    for (const d of [absurd, new Date(Number.NaN), new Date(-9e15)]) {
      expect(formatExact(d, 'en')).toBe(NO_DATE);
      expect(formatRelative(d, 'en', now)).toBe(NO_DATE);
    }
    expect(formatModified('+999999-01-01T00:00:00Z', 'en', true, now)).toBe('');
    // The far but showable end still formats.
    expect(formatRelative(new Date(now + 100 * 365.25 * 86400_000), 'en', now)).toBe('in 100 years');
  });
});

describe('tokens', () => {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  it('decodes the user claim of a three-part token', () => {
    const token = `${part({ alg: 'HS256' })}.${part({ user: { id: 1, username: 'zoë' }, exp: 2, iat: 1 })}.sig`;
    expect(decodeToken(token).user.username).toBe('zoë');
    expect(isExpired(decodeToken(token), 3000)).toBe(true);
    expect(isExpired(decodeToken(token), 1000)).toBe(false);
  });

  it('refuses a token without exactly three parts as malformed', () => {
    expect(() => decodeToken('a.b')).toThrow('token malformed');
    expect(() => decodeToken('a.b.c.d')).toThrow('token malformed');
  });
});
