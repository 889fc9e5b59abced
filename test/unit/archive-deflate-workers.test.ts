/** Small zip entries deflated in batches in worker threads (services/files/archive/deflate-workers.ts). */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createDeflateBatcher } from '../../src/services/files/archive/deflate-workers.ts';

describe('deflate batcher', () => {
  it('gives each entry its CRC and its deflated bytes, or its own bytes when deflating does not shrink them, across several batches', async () => {
    const batcher = createDeflateBatcher();
    const sources = Array.from({ length: 300 }, (_, i) => (i % 3 ? Buffer.from(`entry ${i} `.repeat(200 + i)) : crypto.randomBytes(4000 + i)));
    const packed = await Promise.all(sources.map((s) => batcher.pack(s)));
    packed.forEach((p, i) => {
      const source = sources[i];
      expect(p.crc, `entry ${i}`).toBe(zlib.crc32(source));
      expect(p.size).toBe(source.length);
      if (i % 3) {
        expect(p.method).toBe(8);
        expect(zlib.inflateRawSync(p.data).equals(source)).toBe(true);
      } else {
        expect(p.method).toBe(0);
        expect(p.data.equals(source)).toBe(true);
      }
    });
  });
});
