/** How many commands each user may run at the same time (a DOS guard of the command runner). */
import { CommandRefusedError } from './syntax.ts';

/** Commands one user may run at the same time. */
export const MAX_RUNS_PER_USER = 4;

export class RunSlots {
  private readonly perUser = new Map<number, number>();

  constructor(private readonly max = MAX_RUNS_PER_USER) {}

  /** Takes a slot for the user, or refuses when they already run `max` commands. Returns the release (once only). */
  claim(userId: number): () => void {
    const running = this.perUser.get(userId) ?? 0;
    if (running >= this.max) throw new CommandRefusedError(`you already run ${running} commands; wait for one to finish`);
    this.perUser.set(userId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Commands the user runs now. */
  running(userId: number): number {
    return this.perUser.get(userId) ?? 0;
  }
}
