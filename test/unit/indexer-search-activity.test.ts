import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SearchActivity } from '../../src/services/indexer/search-activity.ts';

describe('SearchActivity (background work waits for searches)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const activity = () => new SearchActivity({ quietMs: 100, maxWaitMs: 1000, now: () => Date.now() });
  /** Whether `p` has settled once the fake clock has moved `ms`. */
  async function settledAfter(p: Promise<void>, ms: number): Promise<boolean> {
    let done = false;
    void p.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(ms);
    return done;
  }

  it('lets work through at once when no search has run', async () => {
    const a = activity();
    expect(a.busy).toBe(false);
    expect(await settledAfter(a.pacer()(), 0)).toBe(true);
  });

  it('holds work while a search runs and until quietMs after it ends', async () => {
    const a = activity();
    const end = a.begin();
    const waiting = a.pacer()();
    expect(await settledAfter(waiting, 500)).toBe(false);
    end();
    expect(a.busy).toBe(true);
    expect(await settledAfter(waiting, 60)).toBe(false);
    expect(await settledAfter(waiting, 60)).toBe(true);
    expect(a.busy).toBe(false);
  });

  it('counts overlapping searches, and an end called twice once', async () => {
    const a = activity();
    const first = a.begin();
    const second = a.begin();
    first();
    first();
    await vi.advanceTimersByTimeAsync(200);
    expect(a.busy).toBe(true);
    second();
    await vi.advanceTimersByTimeAsync(100);
    expect(a.busy).toBe(false);
  });

  it('holds one piece of work maxWaitMs in all (searches that never stop), then lets it through', async () => {
    const a = activity();
    a.begin();
    const pace = a.pacer();
    const first = pace();
    expect(await settledAfter(first, 600)).toBe(false);
    expect(await settledAfter(first, 410)).toBe(true);
    // The allowance is spent: later waits of the same work end at once.
    expect(await settledAfter(pace(), 0)).toBe(true);
    // Another piece of work has its own.
    expect(await settledAfter(a.pacer()(), 500)).toBe(false);
  });
});
