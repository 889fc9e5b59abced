/**
 * services/young-gc.ts: a young collection every 8 MiB an upload receives, through the
 * `gc` the boot's `--expose-gc` makes available (docs/decisions.md, "Performance: tus uploads,
 * the machine's ceiling"); nothing, and no error, in a process without the flag.
 */
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** Counts the young collections that happen while the observer is connected. */
function countMinorGcs(): { count: () => number; stop: () => void } {
  let n = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) n++;
  });
  obs.observe({ entryTypes: ['gc'] });
  return { count: () => n, stop: () => obs.disconnect() };
}

afterEach(() => vi.resetModules());

describe('receivedBytes', () => {
  it('does nothing where the boot did not expose gc', async () => {
    const { receivedBytes } = await import('../../src/services/young-gc.ts');
    expect(() => {
      for (let i = 0; i < 256; i++) receivedBytes(64 * 1024);
    }).not.toThrow();
  });

  it('runs a young collection every 8 MiB received', async () => {
    v8.setFlagsFromString('--expose-gc');
    const { receivedBytes } = await import('../../src/services/young-gc.ts');
    const gcs = countMinorGcs();
    try {
      // 64 MiB counted in the body's 64 KiB pieces; the loop itself allocates nothing.
      for (let i = 0; i < 1024; i++) receivedBytes(64 * 1024);
      await expect.poll(gcs.count).toBeGreaterThanOrEqual(64 / 8);
      expect(gcs.count()).toBeLessThan(64 / 8 + 4);
    } finally {
      gcs.stop();
    }
  });
});
