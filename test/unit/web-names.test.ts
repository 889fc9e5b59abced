/** How the UI shows and edits names that are not UTF-8 (web/lib/names.ts). */
import { describe, expect, it } from 'vitest';
import { displayName, editableName, hasEscapes, nameBytesHex, nameParts, nameTitle, parseEditedName } from '../../web/lib/names.ts';
import { decodeName, displayName as serverDisplayName } from '../../src/services/files/disk/names.ts';
import { encodePath, filesUrl, pathFromFilesUrl } from '../../web/lib/paths.ts';

/** "café.txt" in Latin-1, as the server sends it. */
const CAFE = 'caf\uf7e9.txt';

describe('showing names', () => {
  it('leaves UTF-8 names alone', () => {
    for (const name of ['a.txt', 'café', '日本語 😀', 'back\\slash', '']) {
      expect(hasEscapes(name)).toBe(false);
      expect(nameParts(name)).toEqual([{ text: name }]);
      expect(displayName(name)).toBe(name);
      expect(nameTitle(name, () => 'unused')).toBe(name);
    }
  });

  it('marks each byte that is not UTF-8 as \\xHH', () => {
    expect(nameParts(CAFE)).toEqual([{ text: 'caf' }, { text: '\\xE9', byte: 0xe9 }, { text: '.txt' }]);
    expect(nameParts('\uf780\uf7ffé')).toEqual([{ text: '\\x80', byte: 0x80 }, { text: '\\xFF', byte: 0xff }, { text: 'é' }]);
    expect(displayName(CAFE)).toBe('caf\\xE9.txt');
  });

  it('shows what the server logs, and gives the bytes on disk', () => {
    const raw = Buffer.from([0xc3, 0xa9, 0x20, 0xe9, 0x80, 0x41, 0xf0, 0x9f, 0x98, 0x80]);
    const name = decodeName(raw);
    expect(displayName(name)).toBe(serverDisplayName(name));
    expect(nameBytesHex(name)).toBe('C3 A9 20 E9 80 41 F0 9F 98 80');
    expect(nameTitle(CAFE, (hex) => `Name bytes: ${hex}`)).toBe('caf\\xE9.txt\nName bytes: 63 61 66 E9 2E 74 78 74');
  });

  it('keeps the escaped string in URLs, which round-trip', () => {
    const url = filesUrl(`/d\uf780/${CAFE}`, false);
    expect(url).toBe(`/files${encodePath(`/d\uf780/${CAFE}`)}`);
    expect(pathFromFilesUrl(url)).toBe(`/d\uf780/${CAFE}`);
  });
});

describe('editing names', () => {
  it('edits UTF-8 names as they are, backslashes included', () => {
    expect(editableName('a\\xE9.txt')).toBe('a\\xE9.txt');
    expect(parseEditedName('a\\xE9.txt', 'plain.txt')).toBe('a\\xE9.txt');
  });

  it('round-trips names with bytes that are not UTF-8, backslashes included', () => {
    for (const name of [CAFE, 'a\\b\uf7e9', '\uf780\uf7ff', 'x\\\\\uf790\\xE9']) {
      expect(parseEditedName(editableName(name), name)).toBe(name);
    }
    expect(editableName('a\\b\uf7e9')).toBe('a\\\\b\\xE9');
  });

  it('turns typed \\xHH (80 to FF) into bytes, and leaves other backslashes as typed', () => {
    expect(parseEditedName('caf\\xE9-2.txt', CAFE)).toBe('caf\uf7e9-2.txt');
    expect(parseEditedName('\\xe9\\x41\\q', CAFE)).toBe('\uf7e9\\x41\\q');
    expect(parseEditedName('renamed.txt', CAFE)).toBe('renamed.txt');
  });
});
