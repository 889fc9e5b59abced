/** gzip in parallel blocks (services/files/archive/parallel-gzip.ts): one valid gzip stream, in order, whatever finishes first. */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createParallelGzip, type ParallelGzipOptions } from '../../src/services/files/archive/parallel-gzip.ts';

const gzipOf = (chunks: Buffer[], opts: ParallelGzipOptions) => buffer(Readable.from(chunks).pipe(createParallelGzip(opts)));

describe('parallel gzip', () => {
  it('blocks that compress at different speeds come out in input order; gzip -d and zlib read the members as one stream', async () => {
    // Alternating noise and text: the text blocks finish first.
    const blocks = Array.from({ length: 12 }, (_, i) => (i % 2 ? Buffer.from(`block ${i} `.repeat(7000)) : crypto.randomBytes(70_000)));
    const input = Buffer.concat(blocks);
    // Chunks that do not line up with the blocks.
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.length; at += 33_333) chunks.push(input.subarray(at, at + 33_333));
    const out = await gzipOf(chunks, { blockSize: 64 * 1024, parallel: 4 });
    expect(zlib.gunzipSync(out).equals(input)).toBe(true);
    expect(execFileSync('gzip', ['-dc'], { input: out, maxBuffer: 16 << 20 }).equals(input)).toBe(true);
    // Several members: each starts with the gzip magic and deflate method.
    expect(out.subarray(1).indexOf(Buffer.from([0x1f, 0x8b, 0x08]))).toBeGreaterThan(0);
  });

  it('empty input is still a gzip file', async () => {
    const out = await gzipOf([], {});
    expect(zlib.gunzipSync(out).length).toBe(0);
    expect(execFileSync('gzip', ['-t'], { input: out }).length).toBe(0);
  });

  it('raw: pieces ending with sync flushes and a final block make one raw deflate stream (a zip entry), in order', async () => {
    const blocks = Array.from({ length: 7 }, (_, i) => (i % 2 ? Buffer.from(`piece ${i} `.repeat(9000)) : crypto.randomBytes(50_000)));
    const input = Buffer.concat(blocks);
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.length; at += 40_000) chunks.push(input.subarray(at, at + 40_000));
    const out = await gzipOf(chunks, { blockSize: 64 * 1024, parallel: 3, raw: true });
    expect(zlib.inflateRawSync(out).equals(input)).toBe(true);
    expect(out.length).toBeLessThan(input.length);
    // Nothing after the final block, and an empty input is a valid empty stream.
    expect(out.subarray(-2).equals(zlib.deflateRawSync(Buffer.alloc(0)))).toBe(true);
    expect(zlib.inflateRawSync(await gzipOf([], { raw: true })).length).toBe(0);
  });
});
