/** Names that are not UTF-8 in downloads' headers and archives' entry names (pure parts). */
import { describe, expect, it } from 'vitest';
import { asciiStandIn, paxRecord } from '../../src/services/files/archive/names.ts';
import { contentDisposition } from '../../src/server/download.ts';

describe('contentDisposition', () => {
  it('percent-encodes the exact bytes in filename*, with an ASCII fallback', () => {
    expect(contentDisposition('attachment', 'caf\uf7e9.txt')).toBe(`attachment; filename="caf_.txt"; filename*=UTF-8''caf%E9.txt`);
    // An escaped byte beside real UTF-8: each keeps its own bytes.
    expect(contentDisposition('inline', 'é\uf780')).toBe(`inline; filename="__"; filename*=UTF-8''%C3%A9%80`);
  });

  it('is unchanged for UTF-8 names', () => {
    expect(contentDisposition('attachment', `café résumé "q" (1)*'.pdf`)).toBe(
      `attachment; filename="caf_ r_sum_ _q_ (1)*'.pdf"; filename*=UTF-8''caf%C3%A9%20r%C3%A9sum%C3%A9%20%22q%22%20%281%29%2A%27.pdf`,
    );
    expect(contentDisposition('attachment', '')).toBe(`attachment; filename="download"; filename*=UTF-8''`);
  });
});

describe('tar names', () => {
  it('pax records count their own length, across a change in the number of digits', () => {
    for (let n = 0; n < 1200; n++) {
      const record = paxRecord('path', Buffer.alloc(n, 0xe9));
      const space = record.indexOf(0x20);
      expect(Number(record.subarray(0, space).toString()), `value of ${n} bytes`).toBe(record.length);
      expect(record.subarray(space, space + 6).toString()).toBe(' path=');
      expect(record[record.length - 1]).toBe(0x0a);
    }
  });

  it('the ASCII stand-in is printable and fits a plain ustar header', () => {
    expect(asciiStandIn('d\uf780/caf\uf7e9.txt')).toBe('d_/caf_.txt');
    const long = asciiStandIn(`${'é'.repeat(80)}/${'x'.repeat(80)}\uf7e9`);
    expect(long.length).toBeLessThanOrEqual(99);
    expect(long).toMatch(/^[\x20-\x7e]+$/);
    expect(long.startsWith('/')).toBe(false);
  });
});
