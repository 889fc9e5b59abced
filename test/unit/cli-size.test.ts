import { describe, expect, it } from 'vitest';
import { formatSize, parseSize } from '../../src/api/size.ts';

describe('parseSize (tus chunk size and upload limits)', () => {
  it.each([
    ['10MB', 10 * 1024 * 1024],
    ['10mb', 10 * 1024 * 1024],
    ['10 MiB', 10 * 1024 * 1024],
    ['1.5GiB', 1.5 * 1024 ** 3],
    ['1.5GB', 1.5 * 1024 ** 3],
    ['512k', 512 * 1024],
    ['512KB', 512 * 1024],
    ['1048576', 1048576],
    ['7B', 7],
    ['0', 0],
    ['2T', 2 * 1024 ** 4],
    ['.5M', 512 * 1024],
    [' 3 MB ', 3 * 1024 * 1024],
    ['2g', 2 * 1024 ** 3],
    ['4KiB', 4096],
    ['1tib', 1024 ** 4],
  ])('reads %s as %d bytes', (raw, bytes) => {
    expect(parseSize(raw)).toBe(bytes);
  });

  it('rounds fractions of a byte', () => {
    expect(parseSize('1.1MB')).toBe(Math.round(1.1 * 1024 * 1024));
    expect(parseSize('0.4B')).toBe(0);
  });

  it.each(['', 'MB', '-1MB', '10XB', '1,5MB', '1e3', '10 M B', 'abc', '1.2.3K', '99999999999TB', '12abc', '1PB', '1kk'])('refuses %j', (raw) => {
    expect(() => parseSize(raw)).toThrow(/size/);
  });
});

describe('formatSize', () => {
  it.each([
    [0, '0B'],
    [1023, '1023B'],
    [1024, '1KB'],
    [10 * 1024 * 1024, '10MB'],
    [1.5 * 1024 ** 3, '1.5GB'],
    [1234567, '1.18MB'],
    [5 * 1024 ** 5, '5120TB'],
  ])('formats %d as %s', (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });

  it('round-trips through parseSize', () => {
    for (const n of [1, 1024, 10 * 1024 * 1024, 1.5 * 1024 ** 3]) expect(parseSize(formatSize(n))).toBe(n);
  });
});
