import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_THROTTLE, Throttle } from '../../../src/services/throttle.ts';
import { TooManyRequestsError } from '../../../src/errors.ts';

/** Runs one failed attempt and returns the delay the caller was asked to wait. */
async function failOnce(t: Throttle, keys: string[]): Promise<number> {
  const delay = await t.check(keys);
  await t.fail(keys);
  return delay;
}

describe('Throttle', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('answers the first 5 failures at once, then slows down, growing up to the cap', async () => {
    const t = new Throttle();
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) delays.push(await failOnce(t, ['user:a']));
    expect(delays.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(delays.slice(5)).toEqual([250, 500, 1000, 2000, 2000]);
  });

  it('locks after 10 failures with 429 and a Retry-After of the lock time', async () => {
    const t = new Throttle();
    for (let i = 0; i < 10; i++) await failOnce(t, ['user:a']);
    let err: unknown;
    try {
      await t.check(['user:a']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TooManyRequestsError);
    expect((err as TooManyRequestsError).status).toBe(429);
    expect((err as TooManyRequestsError).headers['Retry-After']).toBe(String(LOGIN_THROTTLE.lockMs / 1000));
  });

  it('unlocks after the lock time', async () => {
    const t = new Throttle();
    for (let i = 0; i < 10; i++) await failOnce(t, ['user:a']);
    vi.advanceTimersByTime(LOGIN_THROTTLE.lockMs - 1000);
    await expect(t.check(['user:a'])).rejects.toThrow(TooManyRequestsError);
    vi.advanceTimersByTime(LOGIN_THROTTLE.windowMs);
    expect(await t.check(['user:a'])).toBe(0);
  });

  it('forgets failures older than the window', async () => {
    const t = new Throttle();
    for (let i = 0; i < 9; i++) await failOnce(t, ['user:a']);
    vi.advanceTimersByTime(LOGIN_THROTTLE.windowMs + 1);
    expect(await failOnce(t, ['user:a'])).toBe(0);
  });

  it('locks when any of the keys is locked (per username and per address)', async () => {
    const t = new Throttle();
    for (let i = 0; i < 10; i++) await failOnce(t, [`user:u${i}`, 'ip:1.2.3.4']);
    await expect(t.check(['user:fresh', 'ip:1.2.3.4'])).rejects.toThrow(TooManyRequestsError);
    expect(await t.check(['user:fresh', 'ip:5.6.7.8'])).toBe(0);
  });

  it('a success clears the keys', async () => {
    const t = new Throttle();
    for (let i = 0; i < 8; i++) await failOnce(t, ['user:a']);
    await t.check(['user:a']);
    await t.succeed(['user:a']);
    expect(await failOnce(t, ['user:a'])).toBe(0);
  });

  it('counts attempts in flight, so a parallel burst cannot all pass the check', async () => {
    const t = new Throttle();
    let passed = 0;
    for (let i = 0; i < 30; i++) {
      try {
        await t.check(['user:a']);
        passed++;
      } catch (err) {
        expect(err).toBeInstanceOf(TooManyRequestsError);
      }
    }
    expect(passed).toBe(LOGIN_THROTTLE.lockAfter);
  });

  it('release() ends an attempt without counting a failure', async () => {
    const t = new Throttle();
    for (let i = 0; i < 20; i++) {
      await t.check(['user:a']);
      await t.release(['user:a']);
    }
    expect(await t.check(['user:a'])).toBe(0);
  });

  it('takes custom options', async () => {
    const t = new Throttle({ freeFailures: 1, lockAfter: 2, windowMs: 1000, lockMs: 5000, maxDelayMs: 100 });
    expect(await failOnce(t, ['k'])).toBe(0);
    expect(await failOnce(t, ['k'])).toBe(100);
    await expect(t.check(['k'])).rejects.toThrow(TooManyRequestsError);
  });
});
