import { describe, expect, it } from 'vitest';
import { canonicalName, decodeName, displayName, hasEscapes, isSuspect, nameBytes, osPath } from '../../src/services/files/disk/names.ts';

const b = (...bytes: number[]) => Buffer.from(bytes);

describe('byte names', () => {
  it('keeps valid UTF-8 as it is', () => {
    for (const s of ['a.txt', 'café', '日本語', '😀 x', '\ufffd', 'a\u0001b']) {
      expect(decodeName(Buffer.from(s))).toBe(s);
      expect(osPath(s)).toBe(s);
      expect(nameBytes(s).equals(Buffer.from(s))).toBe(true);
    }
  });

  it('escapes each invalid byte and maps it back exactly', () => {
    const raw = b(0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74); // "caf\xE9.txt" in Latin-1
    const s = decodeName(raw);
    expect(s).toBe('caf\uf7e9.txt');
    expect(hasEscapes(s)).toBe(true);
    expect(nameBytes(s).equals(raw)).toBe(true);
    expect(Buffer.isBuffer(osPath(s))).toBe(true);
    expect(displayName(s)).toBe('caf\\xE9.txt');
  });

  it('escapes truncated, overlong and surrogate sequences byte by byte', () => {
    const cases = [b(0xe2, 0x82), b(0xc0, 0xaf), b(0xed, 0xa0, 0x80), b(0xf4, 0x90, 0x80, 0x80), b(0xff), b(0x80, 0x41)];
    for (const raw of cases) {
      const s = decodeName(raw);
      expect(nameBytes(s).equals(raw)).toBe(true);
      expect(isSuspect(s) || !hasEscapes(s)).toBe(true);
    }
    expect(decodeName(b(0xc0, 0xaf))).toBe('\uf7c0\uf7af');
  });

  it('escapes real characters of the escape range, so no name is mistaken for another', () => {
    const real = '\uf7e9'; // valid UTF-8 EF 9F A9 on disk
    const s = decodeName(Buffer.from(real, 'utf8'));
    expect(s).toBe('\uf7ef\uf79f\uf7a9');
    expect(nameBytes(s).equals(Buffer.from(real, 'utf8'))).toBe(true);
    expect(decodeName(b(0xe9))).not.toBe(s);
  });

  it('round-trips random byte strings', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
    for (let n = 0; n < 2000; n++) {
      const raw = Buffer.from(Array.from({ length: 1 + (n % 12) }, () => rand() || 1));
      const s = decodeName(raw);
      expect(nameBytes(s).equals(raw)).toBe(true);
      expect(decodeName(nameBytes(s))).toBe(s);
    }
  });

  it('folds escapes that spell a valid character into that character', () => {
    expect(canonicalName('priv\uf7c3\uf7a9')).toBe('privé');
    expect(canonicalName('caf\uf7e9')).toBe('caf\uf7e9');
    expect(canonicalName('plain')).toBe('plain');
  });

  it('flags names a lossy reading may have changed', () => {
    expect(isSuspect('a\ufffdb')).toBe(true);
    expect(isSuspect('plain.txt')).toBe(false);
  });
});
