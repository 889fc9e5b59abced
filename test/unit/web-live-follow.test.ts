/**
 * The browser's live stream (web/api/live.ts) with a stand-in EventSource: events reach the
 * handlers, a failed stream is opened again after 1, 2, 4 … 30 s, a stream opened again asks for
 * a refetch, and closing stops everything.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { followFolder } from '../../web/api/live.ts';

class FakeSource extends EventTarget {
  static opened: FakeSource[] = [];
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    super();
    FakeSource.opened.push(this);
  }
  close() {
    this.closed = true;
  }
  emit(type: string, data = '{}') {
    this.dispatchEvent(new MessageEvent(type, { data }));
  }
  fail() {
    this.onerror?.();
  }
}

const last = () => FakeSource.opened.at(-1)!;

beforeEach(() => {
  FakeSource.opened = [];
  vi.useFakeTimers();
  vi.stubGlobal('EventSource', FakeSource);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('followFolder', () => {
  it('opens the folder’s stream and hands changes and resets to the handlers', () => {
    const change = vi.fn();
    const reset = vi.fn();
    followFolder('/a b/c', { change, reset });
    expect(last().url).toBe('/api/events/a%20b/c');
    last().emit('ready');
    last().emit('change', '{"items":[],"removed":["x"]}');
    last().emit('reset');
    expect(change).toHaveBeenCalledWith({ items: [], removed: ['x'] });
    expect(reset).toHaveBeenCalledTimes(1);
  });

  it('reconnects after 1, 2, 4 … 30 s; a successful reconnection refetches and starts the delays again', () => {
    const reset = vi.fn();
    followFolder('/', { change: vi.fn(), reset });
    last().emit('ready');
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = FakeSource.opened.length;
      const failed = last();
      failed.fail();
      expect(failed.closed).toBe(true);
      let waited = 0;
      while (FakeSource.opened.length === before) {
        vi.advanceTimersByTime(250);
        waited += 250;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(reset).not.toHaveBeenCalled();
    last().emit('ready');
    expect(reset).toHaveBeenCalledTimes(1);
    const before = FakeSource.opened.length;
    last().fail();
    vi.advanceTimersByTime(1000);
    expect(FakeSource.opened.length).toBe(before + 1);
  });

  it('closing ends the stream and any pending reconnection', () => {
    const stop = followFolder('/', { change: vi.fn(), reset: vi.fn() });
    last().fail();
    stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSource.opened).toHaveLength(1);
    expect(last().closed).toBe(true);
  });
});
