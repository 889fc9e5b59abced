import { describe, expect, it } from 'vitest';
import { meets, renderChart, xOf } from '../../bench/chart.ts';

describe('bench chart', () => {
  it('places ratios on a logarithmic axis: 0.5× and 2× are equally far from 1×', () => {
    expect(xOf(1) - xOf(0.5)).toBeCloseTo(xOf(2) - xOf(1), 6);
    expect(xOf(1000)).toBe(xOf(20));
    expect(xOf(0)).toBe(xOf(0.05));
  });

  it('judges a score by its direction', () => {
    expect(meets({ value: 0.95, target: 0.9, better: 'higher' })).toBe(true);
    expect(meets({ value: 0.41, target: 0.9, better: 'higher' })).toBe(false);
    expect(meets({ value: 1.05, target: 1.1, better: 'lower' })).toBe(true);
    expect(meets({ value: 1.84, target: 1.1, better: 'lower' })).toBe(false);
  });

  it('draws one bar and one target mark per scored workload, and leaves the others out', () => {
    const svg = renderChart(
      [
        { workload: 'raw download <1 GiB>', score: { value: 1.0, target: 0.9, better: 'higher' } },
        { workload: 'list 100k', score: { value: 1.84, target: 1.1, better: 'lower' } },
        { workload: 'search p95' },
        { workload: 'failed', score: { value: Number.NaN, target: 1, better: 'higher' } },
      ],
      'fm & co',
    );
    expect(svg.match(/<g class="meets">/g)).toHaveLength(1);
    expect(svg.match(/<g class="misses">/g)).toHaveLength(1);
    expect(svg.match(/class="target"/g)).toHaveLength(2);
    expect(svg).toContain('raw download &#60;1 GiB&#62;');
    expect(svg).toContain('fm &#38; co');
    expect(svg).toContain('1.8× (target ≤ 1.1×)');
    expect(svg).not.toContain('search p95');
  });
});
