import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alternate, pairedRatios } from '../../bench/rounds.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('bench rounds', () => {
  it('pairs each fm round with the mean of the baseline rounds on either side', () => {
    expect(pairedRatios([500, 900], [1000, 1000, 800])).toEqual([0.5, 1]);
    expect(() => pairedRatios([500, 900], [1000, 1000])).toThrow();
  });

  it('runs B F B F B, each round after an unmeasured baseline round, deleting every file just before the next round', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-rounds-'));
    dirs.push(dir);
    const order: string[] = [];
    let n = 0;
    // Each round checks that the files of every round before it are gone, then leaves one.
    const side = (name: string) => async () => {
      expect(fs.readdirSync(dir)).toEqual([]);
      const file = path.join(dir, `${name}-${n++}`);
      fs.writeFileSync(file, name);
      order.push(name);
      return { mbps: name === 'fm' ? 50 : 100, files: [file] };
    };
    const r = await alternate(2, side('baseline'), side('fm'));
    // reset, measured baseline, reset, fm, reset, baseline, reset, fm, reset, baseline.
    expect(order).toEqual(['baseline', 'baseline', 'baseline', 'fm', 'baseline', 'baseline', 'baseline', 'fm', 'baseline', 'baseline']);
    expect(r.baseline).toEqual([100, 100, 100]);
    expect(r.fm).toEqual([50, 50]);
    expect(r.ratios).toEqual([0.5, 0.5]);
    expect(r.ratio).toBe(0.5);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
