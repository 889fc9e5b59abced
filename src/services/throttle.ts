/**
 * Failure throttling keyed by strings (a username, a client address, a share hash).
 * After `freeFailures` failures within the window, each answer is delayed; after
 * `lockAfter` failures the key is locked and callers get 429 with Retry-After.
 *
 * Attempts still running count as failures until they end, so a burst of parallel
 * guesses cannot all pass the check before the first one fails.
 */
import { TooManyRequestsError } from '../errors.ts';
import type { ThrottleCounts, ThrottleRecord } from '../storage/cluster.ts';

/** Where the failure counts of several instances meet (PostgreSQL): `scope` tells throttles apart. */
export interface SharedCounts {
  counts: ThrottleCounts;
  scope: string;
}

export interface ThrottleOptions {
  freeFailures: number;
  lockAfter: number;
  windowMs: number;
  lockMs: number;
  maxDelayMs: number;
}

interface Entry {
  failures: number;
  /** Attempts that passed check() and have not ended with fail/succeed/release yet. */
  pending: number;
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

/**
 * Sign-ups per client address: every attempt counts (a "failure" here), answers never slow
 * down, and the address is refused for an hour after 10 in an hour.
 */
export const SIGNUP_THROTTLE: ThrottleOptions = {
  freeFailures: 1_000,
  lockAfter: 10,
  windowMs: 60 * 60_000,
  lockMs: 60 * 60_000,
  maxDelayMs: 0,
};

export class Throttle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly opts: ThrottleOptions = LOGIN_THROTTLE,
    /** Failures and locks kept in the database for every instance; attempts in flight stay per instance. */
    private readonly shared?: SharedCounts,
  ) {}

  /**
   * Starts an attempt: throws 429 when any key is locked (or would be by the attempts in
   * flight); otherwise returns the delay to apply before answering. End every attempt that
   * passed with fail(), succeed() or release().
   */
  async check(keys: string[]): Promise<number> {
    const stored = this.shared ? await this.shared.counts.read(this.shared.scope, keys) : undefined;
    const now = Date.now();
    let delay = 0;
    const live = keys.map((key) => [key, this.live(key, now)] as const);
    for (const [key, local] of live) {
      const e = stored ? this.merge(local, stored.get(key), now) : local;
      if (!e) continue;
      if (e.lockedUntil > now) throw new TooManyRequestsError((e.lockedUntil - now) / 1000, 'too many failed attempts; try again later');
      const seen = e.failures + e.pending;
      if (seen >= this.opts.lockAfter) throw new TooManyRequestsError(1, 'too many attempts at once; try again later');
      if (seen >= this.opts.freeFailures) {
        delay = Math.max(delay, Math.min(this.opts.maxDelayMs, 250 * 2 ** (seen - this.opts.freeFailures)));
      }
    }
    for (const [key, e] of live) {
      const entry = e ?? { failures: 0, pending: 0, first: now, lockedUntil: 0 };
      entry.pending++;
      this.entries.set(key, entry);
    }
    if (this.entries.size > 100_000) this.prune(now);
    return delay;
  }

  /** Ends an attempt as a failure. */
  async fail(keys: string[]): Promise<void> {
    const now = Date.now();
    // In memory first: the attempt leaves the in-flight count and joins this instance's failures
    // at once, so a check made before the shared row is written counts it exactly once.
    for (const key of keys) {
      const e = this.live(key, now) ?? { failures: 0, pending: 0, first: now, lockedUntil: 0 };
      e.pending = Math.max(0, e.pending - 1);
      e.failures++;
      if (e.failures >= this.opts.lockAfter) e.lockedUntil = now + this.opts.lockMs;
      this.entries.set(key, e);
    }
    if (this.entries.size > 100_000) this.prune(now);
    if (this.shared) {
      const { counts, scope } = this.shared;
      // pg takes integers: "never lock" (Infinity) becomes the largest one.
      const lockAfter = Math.min(this.opts.lockAfter, 2 ** 31 - 1);
      for (const key of keys) await counts.fail(scope, key, now, this.opts.windowMs, lockAfter, this.opts.lockMs);
    }
  }

  /** Ends an attempt as a success: the keys start afresh. */
  async succeed(keys: string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
    if (this.shared) await this.shared.counts.clear(this.shared.scope, keys);
  }

  /** Ends an attempt that neither failed nor succeeded (an internal error). */
  async release(keys: string[]): Promise<void> {
    for (const key of keys) {
      const e = this.entries.get(key);
      if (!e) continue;
      e.pending = Math.max(0, e.pending - 1);
      if (e.pending === 0 && e.failures === 0 && e.lockedUntil === 0) this.entries.delete(key);
    }
  }

  /**
   * The shared failures and lock with this instance's attempts in flight. This instance's own
   * failures count as soon as they happen (the shared row lags by a round trip): the larger of
   * the two counts, never their sum.
   */
  private merge(local: Entry | undefined, stored: ThrottleRecord | undefined, now: number): Entry | undefined {
    const live = stored && (now - stored.first <= this.opts.windowMs || stored.lockedUntil > now) ? stored : undefined;
    if (!local && !live) return undefined;
    return {
      failures: Math.max(local?.failures ?? 0, live?.failures ?? 0),
      pending: local?.pending ?? 0,
      first: live?.first ?? local?.first ?? now,
      lockedUntil: Math.max(local?.lockedUntil ?? 0, live?.lockedUntil ?? 0),
    };
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
