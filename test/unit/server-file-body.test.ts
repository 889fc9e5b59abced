/** FileBody read as a plain Readable (any consumer other than an HTTP response): exact ranges, the file closed after. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBody } from '../../src/server/file-body.ts';
import { tempDir } from '../helpers/server.ts';

const dir = tempDir();
const file = path.join(dir, 'data.bin');
const data = crypto.randomBytes(1_300_000);
fs.writeFileSync(file, data);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function collect(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

describe('FileBody as a plain Readable', () => {
  it.each([
    [0, data.length - 1],
    [3, 1_200_000],
    [524_288, 524_288],
  ])('reads bytes %i..%i exactly', async (start, end) => {
    expect((await collect(new FileBody(await fsp.open(file), start, end))).equals(data.subarray(start, end + 1))).toBe(true);
  });

  it('piped into a stream that is not an HTTP response, gets fresh buffers (each chunk stays intact)', async () => {
    const out = new PassThrough({ highWaterMark: 8 << 20 });
    await pipeline(new FileBody(await fsp.open(file), 0, data.length - 1), out);
    expect((await collect(out)).equals(data)).toBe(true);
  });

  it('closes the file when destroyed', async () => {
    const fh = await fsp.open(file);
    const body = new FileBody(fh, 0, data.length - 1);
    await new Promise<void>((resolve) => body.once('close', resolve).destroy());
    await expect(fh.stat()).rejects.toThrow();
  });
});
