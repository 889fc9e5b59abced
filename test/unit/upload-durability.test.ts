/**
 * Upload durability (services/uploads/durability.ts, flushes.ts, sync-slots.ts): which bytes of
 * a part are trusted under which boot, the background fdatasyncs between acknowledgements, and
 * the process-wide line they wait in.
 */
import { describe, expect, it } from 'vitest';
import { trustedOffset, type SyncMode } from '../../src/services/uploads/durability.ts';
import { Flushes } from '../../src/services/uploads/flushes.ts';
import { SyncSlots } from '../../src/services/uploads/sync-slots.ts';

const periodic: SyncMode = { boot: 'b1', host: 'h', every: 100 };
const eachChunk: SyncMode = { boot: 'b1', host: 'h', every: 0 };

describe('trustedOffset', () => {
  it('trusts the size within the boot that wrote it', () => {
    expect(trustedOffset({ boot: 'b1', host: 'x', offset: 10 }, 500, periodic)).toEqual({ keep: 500 });
  });

  it('cuts back to the synced offset under another boot, and records this boot', () => {
    expect(trustedOffset({ boot: 'b0', host: 'x', offset: 10 }, 500, periodic)).toEqual({ keep: 10, record: { boot: 'b1', host: 'h', offset: 10 } });
    expect(trustedOffset({ boot: 'b0', host: 'x', offset: 900 }, 500, periodic).keep).toBe(500);
  });

  it('treats a damaged record as nothing synced on no known boot', () => {
    for (const bad of [null, 'b1', { boot: 'b1', offset: -1 }, { boot: 'b1', offset: 1.5 }, { offset: 10 }]) {
      expect(trustedOffset(bad, 500, periodic)).toEqual({ keep: 0, record: { boot: 'b1', host: 'h', offset: 0 } });
    }
  });

  it('trusts the size of a part fsynced chunk by chunk (no synced offset), and records it before appending without syncs', () => {
    expect(trustedOffset(undefined, 500, periodic)).toEqual({ keep: 500, record: { boot: 'b1', host: 'h', offset: 500 } });
    expect(trustedOffset(undefined, 500, eachChunk)).toEqual({ keep: 500 });
    expect(trustedOffset(undefined, 500, { host: 'h', every: 0 })).toEqual({ keep: 500 });
  });

  it('when every chunk is fdatasynced, clears a synced offset after cutting back to it (null: every byte is durable)', () => {
    expect(trustedOffset({ boot: 'b0', host: 'x', offset: 10 }, 500, eachChunk)).toEqual({ keep: 10, record: null });
    expect(trustedOffset({ boot: 'b1', host: 'x', offset: 10 }, 500, eachChunk)).toEqual({ keep: 500, record: null });
    expect(trustedOffset({ boot: 'b1', host: 'x', offset: 10 }, 500, { host: 'h', every: 0 })).toEqual({ keep: 10, record: null });
  });
});

/** A sync the test completes or fails by hand. */
function manualSync() {
  const calls: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const sync = () => new Promise<void>((resolve, reject) => calls.push({ resolve, reject }));
  return { sync, calls };
}

describe('Flushes', () => {
  it('starts one background sync every `every` bytes and reports the offset it reached once done', async () => {
    const f = new Flushes();
    const { sync, calls } = manualSync();
    expect(f.afterChunk('u', 1, 60, 0, 100, sync)).toBe(0);
    expect(calls).toHaveLength(0);
    expect(f.afterChunk('u', 1, 120, 0, 100, sync)).toBe(0);
    expect(calls).toHaveLength(1);
    expect(f.afterChunk('u', 1, 250, 0, 100, sync)).toBe(0); // one at a time
    expect(calls).toHaveLength(1);
    calls[0].resolve();
    await settled();
    expect(f.afterChunk('u', 1, 260, 0, 100, sync)).toBe(120);
    expect(calls).toHaveLength(2); // 260 - 120 >= 100
  });

  it('fails the next chunk, and the last chunk, with a failed sync', async () => {
    const f = new Flushes();
    const { sync, calls } = manualSync();
    f.afterChunk('u', 1, 100, 0, 100, sync);
    calls[0].reject(new Error('EIO'));
    await expect(f.settle('u')).rejects.toThrow('EIO');
    f.afterChunk('u', 1, 200, 0, 100, sync);
    calls[1].reject(new Error('EIO again'));
    await new Promise((r) => setImmediate(r));
    expect(() => f.afterChunk('u', 1, 210, 0, 100, sync)).toThrow('EIO again');
  });

  it('starts afresh for an upload created again under the same id', async () => {
    const f = new Flushes();
    const { sync, calls } = manualSync();
    f.afterChunk('u', 1, 100, 0, 100, sync);
    calls[0].resolve();
    await new Promise((r) => setImmediate(r));
    expect(f.afterChunk('u', 2, 50, 0, 100, sync)).toBe(0);
  });

  it('runs at most `atOnce` syncs in the process; the others wait in line, first come first served', async () => {
    const f = new Flushes(new SyncSlots(2));
    const { sync, calls, started } = namedSyncs();
    for (const id of ['a', 'b', 'c', 'd']) f.afterChunk(id, 1, 100, 0, 100, sync(id));
    expect(started).toEqual(['a', 'b']);
    expect(f.slots.running).toBe(2);
    calls[1].resolve();
    await settled();
    expect(started).toEqual(['a', 'b', 'c']);
    calls[0].resolve();
    calls[2].resolve();
    await settled();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(f.slots.running).toBe(1);
  });

  it('puts an upload in line once; its sync covers the chunks acknowledged before it starts, and counts only once done', async () => {
    const f = new Flushes(new SyncSlots(1));
    const { sync, calls, started } = namedSyncs();
    f.afterChunk('a', 1, 100, 0, 100, sync('a'));
    expect(f.afterChunk('b', 1, 100, 0, 100, sync('b'))).toBe(0);
    expect(f.afterChunk('b', 1, 250, 0, 100, sync('b'))).toBe(0); // still in line: not queued twice
    calls[0].resolve();
    await settled();
    expect(started).toEqual(['a', 'b']);
    expect(f.afterChunk('b', 1, 260, 0, 100, sync('b'))).toBe(0); // running: nothing reached yet
    calls[1].resolve();
    await settled();
    expect(f.afterChunk('b', 1, 270, 0, 100, sync('b'))).toBe(250); // the chunks acknowledged before it started
    expect(started).toEqual(['a', 'b']);
  });

  it('never holds a finished upload behind the line, and drops a forgotten one from it', async () => {
    const f = new Flushes(new SyncSlots(1));
    const { sync, calls, started } = namedSyncs();
    f.afterChunk('a', 1, 100, 0, 100, sync('a'));
    f.afterChunk('b', 1, 100, 0, 100, sync('b'));
    f.afterChunk('c', 1, 100, 0, 100, sync('c'));
    f.afterChunk('d', 1, 100, 0, 100, sync('d'));
    await f.settle('b'); // returns while a's sync still runs: b's own last fdatasync covered it
    f.forget('c');
    calls[0].resolve();
    await settled();
    expect(started).toEqual(['a', 'd']);
  });

  it('fails the ticket of a sync that throws before returning its promise, and gives its slot to the next', async () => {
    const slots = new SyncSlots(1);
    const broken = slots.run(() => {
      throw new Error('EBADF');
    });
    const next = slots.run(async () => {});
    await expect(broken.done).rejects.toThrow('EBADF');
    await next.done;
    await expect.poll(() => slots.running).toBe(0);
  });
});

/** Syncs per upload that the test completes by hand, in the order they started. */
function namedSyncs() {
  const calls: Array<{ resolve: () => void }> = [];
  const started: string[] = [];
  const sync = (id: string) => () =>
    new Promise<void>((resolve) => {
      started.push(id);
      calls.push({ resolve });
    });
  return { sync, calls, started };
}

/** Lets settled promises run their callbacks. */
const settled = () => new Promise((r) => setImmediate(r));
