/** The command runner's per-user limit lives in the exec service (services/exec/run-slots.ts). */
import { describe, expect, it } from 'vitest';
import { MAX_RUNS_PER_USER, RunSlots } from '../../src/services/exec/run-slots.ts';
import { CommandRefusedError } from '../../src/services/exec/syntax.ts';

describe('run slots', () => {
  it('lets a user run at most 4 commands at once, each user on their own', () => {
    const slots = new RunSlots();
    const releases = Array.from({ length: MAX_RUNS_PER_USER }, () => slots.claim(1));
    expect(MAX_RUNS_PER_USER).toBe(4);
    expect(() => slots.claim(1)).toThrow(CommandRefusedError);
    expect(() => slots.claim(1)).toThrow('you already run 4 commands; wait for one to finish');
    expect(() => slots.claim(2)).not.toThrow();
    releases[0]();
    expect(slots.running(1)).toBe(3);
    expect(() => slots.claim(1)).not.toThrow();
  });

  it('releases a slot once, however often the release is called', () => {
    const slots = new RunSlots(2);
    const release = slots.claim(7);
    slots.claim(7);
    release();
    release();
    expect(slots.running(7)).toBe(1);
  });
});
