/**
 * A concurrency limiter: at most `max` tasks run at once, the rest wait in FIFO order.
 * A waiting task whose signal aborts leaves the queue without ever running.
 */

export class Limiter {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('the limit must be a positive integer');
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` when a slot is free; rejects with the signal's reason if aborted while waiting. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.max) await this.wait(signal);
    else this.running++;
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Waits for a slot; the slot is handed over already counted in `running`. */
  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason);
      };
      const waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next)
      next(); // the slot passes straight to the next task
    else this.running--;
  }
}
