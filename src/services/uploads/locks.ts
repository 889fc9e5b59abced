/**
 * In-process locks on uploads: one writer at a time per upload. A PATCH that finds the upload
 * busy is refused (423); termination and re-creation take the lock over by aborting the holder.
 */

interface Holder {
  abort: () => void;
  released: Promise<void>;
}

export type Release = () => void;

export class UploadLocks {
  private readonly held = new Map<string, Holder>();

  isHeld(id: string): boolean {
    return this.held.has(id);
  }

  /** Takes the lock, or returns undefined when someone holds it. `abort` lets a takeover stop us. */
  tryAcquire(id: string, abort: () => void = () => {}): Release | undefined {
    if (this.held.has(id)) return undefined;
    let done!: () => void;
    const released = new Promise<void>((resolve) => (done = resolve));
    const holder: Holder = { abort, released };
    this.held.set(id, holder);
    return () => {
      if (this.held.get(id) === holder) this.held.delete(id);
      done();
    };
  }

  /** Aborts whoever holds the lock, waits for them to let go, and takes it. */
  async takeOver(id: string): Promise<Release> {
    for (;;) {
      const release = this.tryAcquire(id);
      if (release) return release;
      const holder = this.held.get(id)!;
      holder.abort();
      await holder.released;
    }
  }
}
