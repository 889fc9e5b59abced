import { describe, expect, it } from 'vitest';
import { rssGrowth } from '../../bench/soak.ts';

describe('bench soak', () => {
  it('compares the medians of the second and the last tenth of the run, not single samples', () => {
    // A heap that swings between 150 and 210 MiB with each collection, level over the run,
    // with a dip right at the one-minute mark and a peak at the end.
    const samples = Array.from({ length: 300 }, (_, i) => ({ at: i * 2000, mib: i % 3 === 0 ? 150 : i % 3 === 1 ? 180 : 210 }));
    samples[30] = { at: 60_000, mib: 140 };
    samples[299] = { at: 598_000, mib: 230 };
    const r = rssGrowth(samples, 600_000);
    expect(r.second).toBe(180);
    expect(r.last).toBe(180);
    expect(r.growth).toBe(0);
  });

  it('still sees memory that grows through the run', () => {
    const samples = Array.from({ length: 300 }, (_, i) => ({ at: i * 2000, mib: 150 + i / 10 }));
    const r = rssGrowth(samples, 600_000);
    expect(r.growth).toBeGreaterThan(0.1);
  });
});
