import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/services/limiter.ts';

/** A task that runs until released, recording when it starts. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { release, done };
}

describe('the preview concurrency limiter', () => {
  it('never runs more than its limit at once and queues the rest in order', async () => {
    const limiter = new Limiter(2);
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 6 }, gate);
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await g.done;
        running--;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect(limiter.active).toBe(2);
    expect(limiter.waiting).toBe(4);
    gates[1].release();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
    expect(limiter.waiting).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
    expect(limiter.active).toBe(0);
  });

  it('drops a waiting task whose signal aborts, without ever running it', async () => {
    const limiter = new Limiter(1);
    const g = gate();
    const first = limiter.run(() => g.done);
    const controller = new AbortController();
    let ran = false;
    const second = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort(new Error('client gone'));
    await expect(second).rejects.toThrow('client gone');
    expect(limiter.waiting).toBe(0);
    g.release();
    await first;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
  });

  it('refuses an already aborted signal and a bad limit', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(async () => 1, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(() => new Limiter(0)).toThrow(RangeError);
  });
});
