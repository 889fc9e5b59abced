/** One duration parser (services/duration.ts over the ms package): token lifetime, exec timeout, upload expiry. */
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/services/duration.ts';

describe('parseDuration', () => {
  it('reads units and bare seconds', () => {
    expect(parseDuration('2h')).toBe(7200);
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1d')).toBe(86400);
    expect(parseDuration('3600')).toBe(3600);
    expect(parseDuration(' 1.5h ')).toBe(5400);
    expect(parseDuration('2H')).toBe(7200);
    expect(parseDuration('1500ms')).toBe(2);
    expect(parseDuration('90m')).toBe(5400);
    expect(parseDuration('1D')).toBe(86400);
    expect(parseDuration('2.5')).toBe(3);
  });

  it('refuses garbage, negatives and durations under a second', () => {
    for (const bad of ['', 'soon', '-1h', '1w', '1y', '2 hours', '1h30m', '0', '500ms', 'h', '1e3']) {
      expect(() => parseDuration(bad), bad).toThrow();
    }
  });
});
