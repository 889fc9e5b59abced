/**
 * Failure throttling keyed by strings (a username, a client address, a share hash).
 * After `freeFailures` failures within the window, each answer is delayed; after
 * `lockAfter` failures the key is locked and callers get 429 with Retry-After.
 */
import { TooManyRequestsError } from '../errors.ts';

export interface ThrottleOptions {
  freeFailures: number;
  lockAfter: number;
  windowMs: number;
  lockMs: number;
  maxDelayMs: number;
}

interface Entry {
  failures: number;
  first: number;
  lockedUntil: number;
}

export const LOGIN_THROTTLE: ThrottleOptions = {
  freeFailures: 5,
  lockAfter: 10,
  windowMs: 15 * 60_000,
  lockMs: 5 * 60_000,
  maxDelayMs: 2_000,
};

export class Throttle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: ThrottleOptions = LOGIN_THROTTLE) {}

  /** Throws 429 when any key is locked; otherwise returns the delay to apply before answering. */
  check(keys: string[]): number {
    const now = Date.now();
    let delay = 0;
    for (const key of keys) {
      const e = this.live(key, now);
      if (!e) continue;
      if (e.lockedUntil > now) throw new TooManyRequestsError((e.lockedUntil - now) / 1000, 'too many failed attempts; try again later');
      if (e.failures >= this.opts.freeFailures) {
        delay = Math.max(delay, Math.min(this.opts.maxDelayMs, 250 * 2 ** (e.failures - this.opts.freeFailures)));
      }
    }
    return delay;
  }

  fail(keys: string[]): void {
    const now = Date.now();
    for (const key of keys) {
      const e = this.live(key, now) ?? { failures: 0, first: now, lockedUntil: 0 };
      e.failures++;
      if (e.failures >= this.opts.lockAfter) e.lockedUntil = now + this.opts.lockMs;
      this.entries.set(key, e);
    }
    if (this.entries.size > 100_000) this.prune(now);
  }

  succeed(keys: string[]): void {
    for (const key of keys) this.entries.delete(key);
  }

  private live(key: string, now: number): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now - e.first > this.opts.windowMs && e.lockedUntil <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private prune(now: number): void {
    for (const key of [...this.entries.keys()]) this.live(key, now);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
