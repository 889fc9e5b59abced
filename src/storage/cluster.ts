/** What several fm instances on one PostgreSQL database share beyond the records (docs/scale-out.md). */

export interface RawRow {
  key: string;
  value: string;
}

/** Shared by the instances of one PostgreSQL database. */
export interface Cluster {
  throttle: ThrottleCounts;
  /**
   * Takes the lock named `name` unless another instance holds it (a PostgreSQL advisory lock);
   * returns its release, or undefined when it is held elsewhere.
   */
  tryLock(name: string): Promise<(() => Promise<void>) | undefined>;
  /** Tells the other instances that files changed (their search indexes follow); never throws. */
  announceFiles(change: FilesChange): void;
  /** Calls fn for every change of files another instance announces. */
  onFiles(fn: (change: FilesChange) => void): void;
}

export interface FilesChange {
  kind: 'written' | 'removed' | 'moved';
  /** Absolute path on the shared root (the source of a move). */
  abs: string;
  /** The destination of a move. */
  toAbs?: string;
}

export interface ThrottleRecord {
  failures: number;
  first: number;
  lockedUntil: number;
}

/** Failure counters of services/throttle.ts kept where every instance sees them. */
export interface ThrottleCounts {
  read(scope: string, keys: string[]): Promise<Map<string, ThrottleRecord>>;
  fail(scope: string, key: string, now: number, windowMs: number, lockAfter: number, lockMs: number): Promise<void>;
  clear(scope: string, keys: string[]): Promise<void>;
}
