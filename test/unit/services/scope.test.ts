import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanScope, homeDirName, homeScope, scopeDir } from '../../../src/services/scope.ts';

describe('cleanScope', () => {
  it('normalises to an absolute virtual path', () => {
    expect(cleanScope('.')).toBe('/');
    expect(cleanScope('')).toBe('/');
    expect(cleanScope('/')).toBe('/');
    expect(cleanScope('a/b')).toBe('/a/b');
    expect(cleanScope('//a///b/./')).toBe('/a/b');
    expect(cleanScope('\\a\\b')).toBe('/a/b');
  });

  it('refuses anything that would climb (PATH)', () => {
    for (const bad of ['..', '/..', 'a/../..', '/a/../b', '..\\x', 'a/..']) expect(() => cleanScope(bad), bad).toThrow(/\.\./);
    expect(() => cleanScope('a\u0000b')).toThrow(/NUL/);
  });

  it('maps to a folder under the root', () => {
    expect(scopeDir('/srv/files', '/a/b')).toBe(path.join('/srv/files', 'a', 'b'));
    expect(scopeDir('/srv/files', '.')).toBe('/srv/files/');
  });
});

describe('homeDirName (PROV, GHSA-7rc3)', () => {
  it('removes ".." and turns unsafe characters into single dashes', () => {
    expect(homeDirName('alice')).toBe('alice');
    expect(homeDirName('..alice..')).toBe('alice');
    expect(homeDirName('a/../../b')).toBe('a-b');
    expect(homeDirName('two  words')).toBe('two-words');
    expect(homeDirName('ünïcode')).toBe('n-code');
    expect(homeDirName('mail@example.com')).toBe('mail@example.com');
  });

  it('never yields an empty, dot or dash-led name', () => {
    for (const name of ['..', '....', '---', '.hidden', '-dash', '/', '']) {
      const d = homeDirName(name);
      expect(d, name).not.toBe('');
      expect(d, name).not.toMatch(/^[.-]/);
    }
  });

  it('gives distinct-looking names the same folder, which the user service then refuses', () => {
    expect(homeDirName('two words')).toBe(homeDirName('two-words'));
    expect(homeDirName('..evil')).toBe(homeDirName('evil'));
  });

  it('places homes under the base path', () => {
    expect(homeScope('/users', 'bob')).toBe('/users/bob');
    expect(homeScope('users/', '../bob')).toBe('/users/bob');
  });
});
