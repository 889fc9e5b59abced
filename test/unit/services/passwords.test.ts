import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BCRYPT_COST, checkPassword, checkPasswordPolicy, hashPassword, isBcryptHash } from '../../../src/services/passwords.ts';

describe('password policy', () => {
  it('refuses an empty password and one shorter than the minimum (GHSA-cm2r)', () => {
    expect(() => checkPasswordPolicy('', 12)).toThrow(/empty/);
    expect(() => checkPasswordPolicy('elevenchars', 12)).toThrow(/too short/);
    expect(() => checkPasswordPolicy('twelve-chars', 12)).not.toThrow();
  });

  it('counts characters, not bytes or UTF-16 units', () => {
    expect(() => checkPasswordPolicy('😀'.repeat(11), 12)).toThrow(/too short/);
    expect(() => checkPasswordPolicy('😀'.repeat(12), 12)).not.toThrow();
  });

  it('refuses the most common passwords, whatever their case', () => {
    for (const pw of ['password1234', 'PASSWORD1234', 'qwerty123456', '123456789012', 'filebrowser123']) {
      expect(() => checkPasswordPolicy(pw, 12), pw).toThrow(/common/);
    }
  });

  it('refuses passwords over 72 bytes, which bcrypt would silently truncate', () => {
    expect(() => checkPasswordPolicy('a'.repeat(72), 12)).not.toThrow();
    expect(() => checkPasswordPolicy('a'.repeat(73), 12)).toThrow(/72 bytes/);
    expect(() => checkPasswordPolicy('é'.repeat(37), 12)).toThrow(/72 bytes/);
  });

  it('answers with a 400 error', () => {
    try {
      checkPasswordPolicy('x', 12);
    } catch (err) {
      expect((err as { status: number }).status).toBe(400);
    }
  });
});

describe('hashing and checking', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hashes with bcrypt at cost 10 and verifies', async () => {
    const hash = await hashPassword('a-long-password-1');
    expect(BCRYPT_COST).toBe(10);
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(isBcryptHash(hash)).toBe(true);
    expect(await checkPassword('a-long-password-1', hash)).toBe(true);
    expect(await checkPassword('a-long-password-2', hash)).toBe(false);
  });

  it('AUTH: an unknown user (no hash) still costs one bcrypt compare, then fails (GHSA-43mm)', async () => {
    const compare = vi.spyOn(bcrypt, 'compare');
    expect(await checkPassword('anything', undefined)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    const dummy = compare.mock.calls[0][1] as string;
    expect(isBcryptHash(dummy)).toBe(true);
    expect(dummy).toMatch(/^\$2[aby]\$10\$/);
    expect(await checkPassword('', undefined)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
  });

  it('fails (does not throw) on a stored value that is not a bcrypt hash', async () => {
    expect(await checkPassword('x', 'not-a-hash')).toBe(false);
  });

  it('recognises bcrypt hashes only', () => {
    expect(isBcryptHash(`$2b$10$${'a'.repeat(53)}`)).toBe(true);
    expect(isBcryptHash('$2b$10$short')).toBe(false);
    expect(isBcryptHash('plain')).toBe(false);
  });
});
