/** Moving the clock instead of waiting: for expiry tests against the in-process server. */
import { vi } from 'vitest';

/**
 * Moves this process's clock `ms` ahead; it keeps running from there. The in-process server
 * reads the time through Date, so this moves its clock too (timers are left alone). Undo with
 * `vi.useRealTimers()`, e.g. in an afterEach.
 */
export function jumpClock(ms: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
}
