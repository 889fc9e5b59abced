/**
 * appendChunk (services/uploads/append.ts): a body that is already gone when the chunk gets its
 * turn settles at once instead of waiting for events that never come (which held the upload's
 * lock for ever, so a DELETE taking it over never answered); the body's small pieces are written
 * in large batches, and the pieces that arrived before the client went away are still written.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendChunk, ClientGoneError } from '../../src/services/uploads/append.ts';
import { SyncSlots } from '../../src/services/uploads/sync-slots.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-append-'));
const part = path.join(dir, 'part');
afterEach(() => {
  fs.writeFileSync(part, '');
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Writes `piece` to the body and waits until the pump has taken it. */
async function feed(body: PassThrough, piece: Buffer): Promise<void> {
  await new Promise<void>((resolve, reject) => body.write(piece, (err) => (err ? reject(err) : resolve())));
  await expect.poll(() => body.readableLength).toBe(0);
}
fs.writeFileSync(part, '');

describe('appendChunk', () => {
  it('writes a body that arrives, and reports its length', async () => {
    const body = new PassThrough();
    const done = appendChunk(part, 0, 10, body);
    body.end(Buffer.from('hello'));
    expect((await done).written).toBe(5);
    expect(fs.readFileSync(part, 'utf8')).toBe('hello');
  });

  it('fails at once with ClientGoneError when the body was destroyed before its turn', async () => {
    const body = new PassThrough();
    body.destroy();
    await new Promise((resolve) => body.once('close', resolve));
    await expect(appendChunk(part, 0, 10, body)).rejects.toBeInstanceOf(ClientGoneError);
  });

  it('writes small pieces in batches: at 1 MiB, or 50 ms after the first byte of a smaller batch', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fh = await fsp.open(part, 'r');
    const writev = vi.spyOn(Object.getPrototypeOf(fh) as fsp.FileHandle, 'writev');
    await fh.close();
    const piece = Buffer.alloc(64 * 1024, 7);
    const body = new PassThrough();
    const done = appendChunk(part, 0, 3 * 1024 * 1024, body);
    await expect.poll(() => body.listenerCount('data')).toBe(1); // the part file is open
    const feedNow = (n: number) => {
      for (let i = 0; i < n; i++) {
        body.write(piece);
        expect(body.readableLength).toBe(0); // taken by the pump at once
      }
    };
    feedNow(8);
    expect(writev).not.toHaveBeenCalled();
    vi.advanceTimersByTime(50);
    expect(writev).toHaveBeenCalledTimes(1);
    await expect.poll(() => fs.statSync(part).size).toBe(8 * piece.length);
    feedNow(24);
    body.end();
    expect((await done).written).toBe(32 * piece.length);
    expect(writev.mock.calls.length).toBeLessThanOrEqual(3);
    expect(fs.readFileSync(part).equals(Buffer.alloc(32 * piece.length, 7))).toBe(true);
  });

  it('without syncEach, fdatasyncs only the chunk that completes the upload', async () => {
    const fh = await fsp.open(part, 'r');
    const datasync = vi.spyOn(Object.getPrototypeOf(fh) as fsp.FileHandle, 'datasync');
    await fh.close();
    const first = new PassThrough();
    const done = appendChunk(part, 0, 10, first, false);
    first.end(Buffer.from('hello'));
    expect(await done).toEqual({ written: 5, synced: false });
    expect(datasync).not.toHaveBeenCalled();
    const last = new PassThrough();
    const finished = appendChunk(part, 5, 5, last, false);
    last.end(Buffer.from('world'));
    expect(await finished).toEqual({ written: 5, synced: true });
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(fs.readFileSync(part, 'utf8')).toBe('helloworld');
  });

  it('fails when the body goes away half-way, keeping the bytes that arrived', async () => {
    const body = new PassThrough();
    const done = appendChunk(part, 0, 10, body);
    await feed(body, Buffer.from('abc'));
    body.destroy();
    await expect(done).rejects.toBeInstanceOf(ClientGoneError);
    expect(fs.readFileSync(part, 'utf8')).toBe('abc');
  });

  it('puts the flush of a very large chunk in line, and drops it when the chunk ends before its turn', async () => {
    const fh = await fsp.open(part, 'r');
    const datasync = vi.spyOn(Object.getPrototypeOf(fh) as fsp.FileHandle, 'datasync');
    await fh.close();
    const slots = new SyncSlots(1);
    let releaseOther = () => {};
    const other = slots.run(() => new Promise<void>((resolve) => (releaseOther = resolve))); // another upload's sync holds the slot
    const size = 65 * 1024 * 1024; // past the 64 MiB between flushes
    const body = new PassThrough();
    const done = appendChunk(part, 0, size, body, true, slots);
    const piece = Buffer.alloc(1024 * 1024, 3);
    for (let i = 0; i < 65; i++) await feed(body, piece);
    body.end();
    // The chunk's own fdatasync (it completes the upload) runs at once: the one in line was dropped.
    expect(await done).toEqual({ written: size, synced: true });
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(slots.running).toBe(1);
    releaseOther();
    await other.done;
    await expect.poll(() => slots.running).toBe(0);
    expect(datasync).toHaveBeenCalledTimes(1);
  });

  /** `n` bytes that differ from one position to the next, starting at `seed`. */
  const pattern = (n: number, seed: number) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
    return b;
  };

  it('writes pieces of any size across the 1 MiB batch buffers byte for byte, at the offset given', async () => {
    const data = pattern(3 * 1024 * 1024 + 12345, 1);
    fs.writeFileSync(part, 'head');
    const body = new PassThrough();
    const done = appendChunk(part, 4, data.length, body);
    // Odd sizes, so pieces straddle the batch buffers' ends.
    for (let at = 0, size = 1; at < data.length; at += size, size = (size * 7 + 4099) % 200_003) {
      await feed(body, data.subarray(at, at + size));
    }
    body.end();
    expect((await done).written).toBe(data.length);
    expect(fs.readFileSync(part).equals(Buffer.concat([Buffer.from('head'), data]))).toBe(true);
  });

  it('copies each piece as it arrives (the socket may reuse it), and a reused batch buffer leaks nothing', async () => {
    const first = pattern(1536 * 1024, 2);
    const body = new PassThrough();
    const done = appendChunk(part, 0, first.length, body);
    const piece = Buffer.from(first.subarray(0, 1024));
    await feed(body, piece);
    piece.fill(0); // after the pump took it: must not change what is written
    await feed(body, first.subarray(1024));
    body.end();
    await done;
    const second = pattern(300 * 1024, 3);
    const next = new PassThrough();
    const appended = appendChunk(part, first.length, second.length, next);
    next.end(second);
    expect((await appended).written).toBe(second.length);
    expect(fs.readFileSync(part).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('keeps every byte that arrived when the body goes away in the middle of a batch', async () => {
    const data = pattern(1536 * 1024 + 77, 4);
    const body = new PassThrough();
    const done = appendChunk(part, 0, 4 * 1024 * 1024, body);
    await feed(body, data.subarray(0, 1024 * 1024 - 5));
    await feed(body, data.subarray(1024 * 1024 - 5));
    body.destroy();
    await expect(done).rejects.toBeInstanceOf(ClientGoneError);
    expect(fs.readFileSync(part).equals(data)).toBe(true);
  });
});
