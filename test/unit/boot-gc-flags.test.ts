/**
 * The V8 flags the boot sets for the collector (src/boot/heap.ts). V8 ignores a flag it does not
 * know without a word, so a misspelt flag, or one a newer Node dropped, would silently bring back
 * the mark-compacts they prevent (docs/decisions.md, "Performance: tus uploads, in the full bench").
 */
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tuneGcForStreaming } from '../../src/boot/heap.ts';

afterEach(() => vi.restoreAllMocks());

describe("the boot's collector flags", () => {
  it("are all flags this Node's V8 knows, with values of their type", () => {
    const set: string[] = [];
    vi.spyOn(v8, 'setFlagsFromString').mockImplementation((flag: string) => void set.push(flag));
    tuneGcForStreaming();
    expect(set.length).toBeGreaterThan(0);
    const known = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of set) {
      const m = /^--(no-)?([a-z0-9-]+)(?:=(\d+))?$/.exec(flag);
      expect(m, flag).not.toBeNull();
      const [, negated, name, value] = m!;
      const entry = new RegExp(`^\\s+--${name} \\(.*\\)\\n\\s+type: (\\w+)`, 'm').exec(known);
      expect(entry, `${flag} is not a V8 flag of ${process.version}`).not.toBeNull();
      expect(entry![1], flag).toBe(negated || value === undefined ? 'bool' : 'int');
    }
  });
});
