/**
 * appendChunk (services/uploads/append.ts) with a body that is already gone when the chunk gets
 * its turn: it settles at once instead of waiting for events that never come (which held the
 * upload's lock for ever, so a DELETE taking it over never answered).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { appendChunk, ClientGoneError } from '../../src/services/uploads/append.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-append-'));
const part = path.join(dir, 'part');
afterEach(() => fs.writeFileSync(part, ''));
fs.writeFileSync(part, '');

describe('appendChunk', () => {
  it('writes a body that arrives, and reports its length', async () => {
    const body = new PassThrough();
    const done = appendChunk(part, 0, 10, body);
    body.end(Buffer.from('hello'));
    expect(await done).toBe(5);
    expect(fs.readFileSync(part, 'utf8')).toBe('hello');
  });

  it('fails at once with ClientGoneError when the body was destroyed before its turn', async () => {
    const body = new PassThrough();
    body.destroy();
    await new Promise((resolve) => body.once('close', resolve));
    await expect(appendChunk(part, 0, 10, body)).rejects.toBeInstanceOf(ClientGoneError);
  });

  it('fails when the body goes away half-way, keeping the bytes that arrived', async () => {
    const body = new PassThrough();
    const done = appendChunk(part, 0, 10, body);
    body.write(Buffer.from('abc'));
    await expect.poll(() => fs.readFileSync(part, 'utf8')).toBe('abc');
    body.destroy();
    await expect(done).rejects.toBeInstanceOf(ClientGoneError);
    expect(fs.readFileSync(part, 'utf8')).toBe('abc');
  });
});
