/**
 * WebDAV write locks (RFC 4918 §6–7), held in this process's memory: a lock lasts minutes, a
 * restart ends every edit session anyway, and clients re-lock when a lock is gone. Locks are
 * keyed by the absolute path of the locked entry, so every user and share sees the same lock
 * on the same file; each belongs to the user who took it.
 */
import { randomUUID } from 'node:crypto';
import { LockedError } from '../../errors.ts';
import { isWithin } from '../files/paths.ts';

export interface DavLock {
  token: string;
  /** Absolute path of the locked entry. */
  abs: string;
  /** Virtual path of the locked entry for the user who took it (the lockroot). */
  virtual: string;
  userId: number;
  scope: 'exclusive' | 'shared';
  depth: '0' | 'infinity';
  /** The client's `<D:owner>` content, as XML. */
  ownerXml: string;
  timeoutSeconds: number;
  expiresAt: number;
}

/** The longest lock granted (an `Infinite` timeout asks for this). */
export const MAX_LOCK_SECONDS = 24 * 3600;
export const DEFAULT_LOCK_SECONDS = 3600;

/** `Timeout: Second-600, Infinite` → seconds (the first usable value, capped). */
export function parseTimeout(header: string): number {
  for (const part of header.split(',')) {
    const v = part.trim();
    if (/^infinite$/i.test(v)) return MAX_LOCK_SECONDS;
    const m = /^second-(\d+)$/i.exec(v);
    if (m) return Math.max(1, Math.min(MAX_LOCK_SECONDS, Number(m[1])));
  }
  return DEFAULT_LOCK_SECONDS;
}

export class DavLocks {
  private readonly locks = new Map<string, DavLock>();

  constructor(private readonly now: () => number = Date.now) {}

  private live(): DavLock[] {
    const t = this.now();
    for (const [token, l] of this.locks) if (l.expiresAt <= t) this.locks.delete(token);
    return [...this.locks.values()];
  }

  /** No lock at all (the common case: PROPFIND skips the lookups). */
  get isEmpty(): boolean {
    return this.locks.size === 0;
  }

  get(token: string): DavLock | undefined {
    return this.live().find((l) => l.token === token);
  }

  /** Locks that apply to `abs`: on it, or on a folder above it with depth infinity. */
  covering(abs: string): DavLock[] {
    return this.live().filter((l) => l.abs === abs || (l.depth === 'infinity' && isWithin(l.abs, abs)));
  }

  /** Locks on `abs` itself or anything below it. */
  within(abs: string): DavLock[] {
    return this.live().filter((l) => isWithin(abs, l.abs));
  }

  /** Takes a lock; 423 when it conflicts with one held (exclusive with any, shared with exclusive). */
  create(lock: Omit<DavLock, 'token' | 'expiresAt'>): DavLock {
    const clash = [...this.covering(lock.abs), ...(lock.depth === 'infinity' ? this.within(lock.abs) : [])];
    if (clash.some((l) => l.scope === 'exclusive' || lock.scope === 'exclusive')) throw new LockedError('the resource is locked');
    const created: DavLock = { ...lock, token: `opaquelocktoken:${randomUUID()}`, expiresAt: this.now() + lock.timeoutSeconds * 1000 };
    this.locks.set(created.token, created);
    return created;
  }

  refresh(lock: DavLock, timeoutSeconds: number): DavLock {
    lock.timeoutSeconds = timeoutSeconds;
    lock.expiresAt = this.now() + timeoutSeconds * 1000;
    return lock;
  }

  remove(token: string): void {
    this.locks.delete(token);
  }

  /** Drops the locks on `abs` and below (the entry was deleted or moved away). */
  removeWithin(abs: string): void {
    for (const l of this.within(abs)) this.locks.delete(l.token);
  }
}
