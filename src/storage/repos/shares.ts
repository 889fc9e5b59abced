/**
 * Share links, keyed by their hash. Invariants kept here:
 *   - hashes are random (crypto.randomBytes), URL-safe, unique and never start with "-";
 *   - an expired link is never returned: reading it deletes it;
 *   - bulk removals collect first and delete afterwards (no mutation while iterating).
 * Secrets (the bcrypt hash and the token) are stored here and never leave through a presenter.
 */
import crypto from 'node:crypto';
import type { DropLimits, DropReceived } from '../../api/shares.ts';
import type { Database } from '../db.ts';

/** Which file-system object a link was made for, so a recreated path is not re-exposed. */
export interface ShareIdentity {
  dev: number;
  ino: number;
  /** Birth time in ms (0 when the file system does not record it). */
  birthtimeMs: number;
}

export interface ShareRecord {
  hash: string;
  /** Virtual path inside the owner's scope at creation ("/docs/a.txt"). */
  path: string;
  userID: number;
  /** Epoch seconds; 0 = permanent. */
  expire: number;
  /** bcrypt hash of the password, '' when the link has none. */
  password_hash: string;
  /** Random secret for password-less follow-up requests, '' when the link has no password. */
  token: string;
  /** Identity of the shared file or folder when the link was made. */
  identity?: ShareIdentity;
  /** Absolute entry path and real path of the target at creation (lifecycle matching). */
  abs?: string;
  real?: string;
  /** Epoch seconds of creation. */
  created?: number;
  /** Set on an upload-only (drop) link: its limits and counters (services/drops.ts). */
  drop?: DropState;
}

/** A drop link's limits, what it received, and the room held by uploads in progress. */
export interface DropState extends DropLimits, DropReceived {
  /** Unfinished tus uploads by staging id: bytes declared (each holds one file of the limits). */
  reserved: Record<string, number>;
}

/** Bytes of randomness in a hash: 9 bytes = 12 base64url characters. */
export const HASH_BYTES = 9;
/** Bytes of randomness in a token: 96 bytes = 128 base64url characters (filebrowser's size). */
export const TOKEN_BYTES = 96;
const HASH_RE = /^[A-Za-z0-9_-]{1,128}$/;

const key = (hash: string) => `s:${hash}`;

/** Whether a string could be a share hash at all (anything else is simply unknown). */
export function isHashLike(s: string): boolean {
  return HASH_RE.test(s);
}

export function newToken(): string {
  return crypto.randomBytes(TOKEN_BYTES).toString('base64url');
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function isExpired(s: ShareRecord, now = nowSeconds()): boolean {
  return s.expire !== 0 && s.expire <= now;
}

export class SharesRepo {
  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('shares');
  }

  /** The live link with exactly this hash; an expired one is deleted and reported missing. */
  async get(hash: string): Promise<ShareRecord | undefined> {
    if (!isHashLike(hash)) return undefined;
    const s = await this.kv.get<ShareRecord>(key(hash));
    if (!s || s.hash !== hash) return undefined;
    if (isExpired(s)) {
      await this.kv.delete(key(hash));
      return undefined;
    }
    return s;
  }

  /** Every live link (expired ones are deleted on the way). */
  async list(): Promise<ShareRecord[]> {
    const rows = await this.db.entries<ShareRecord>('shares');
    const now = nowSeconds();
    const live: ShareRecord[] = [];
    const expired: string[] = [];
    for (const [k, s] of rows) {
      if (!k.startsWith('s:') || !s || typeof s.hash !== 'string') continue;
      if (isExpired(s, now)) expired.push(s.hash);
      else live.push(s);
    }
    for (const hash of expired) await this.kv.delete(key(hash));
    return sortShares(live);
  }

  async listByUser(userID: number): Promise<ShareRecord[]> {
    return (await this.list()).filter((s) => s.userID === userID);
  }

  /** Stores a new link under a fresh random hash. */
  async create(data: Omit<ShareRecord, 'hash' | 'created'>): Promise<ShareRecord> {
    for (let attempt = 0; attempt < 16; attempt++) {
      const hash = crypto.randomBytes(HASH_BYTES).toString('base64url');
      // A leading "-" would read as an option on command lines (`fm shares rm <hash>`).
      if (hash.startsWith('-') || (await this.kv.get(key(hash)))) continue;
      const record: ShareRecord = { ...data, hash, created: nowSeconds() };
      await this.kv.set(key(hash), record);
      return record;
    }
    throw new Error('could not draw a unique share hash');
  }

  /** Replaces a stored link (same hash). */
  async update(record: ShareRecord): Promise<void> {
    await this.kv.set(key(record.hash), record);
  }

  /** Deletes exactly this hash; true when it existed. */
  async delete(hash: string): Promise<boolean> {
    if (!isHashLike(hash)) return false;
    return this.kv.delete(key(hash));
  }

  /** Deletes every link matching `pred`; returns the deleted ones. */
  async deleteWhere(pred: (s: ShareRecord) => boolean): Promise<ShareRecord[]> {
    const doomed = (await this.list()).filter(pred);
    for (const s of doomed) await this.kv.delete(key(s.hash));
    return doomed;
  }

  async deleteByUser(userID: number): Promise<ShareRecord[]> {
    return this.deleteWhere((s) => s.userID === userID);
  }
}

/** Permanent links first, then by expiry; ties by owner, path and hash so the order is stable. */
export function sortShares(list: ShareRecord[]): ShareRecord[] {
  const rank = (s: ShareRecord) => (s.expire === 0 ? -Infinity : s.expire);
  return [...list].sort((a, b) => rank(a) - rank(b) || a.userID - b.userID || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.hash < b.hash ? -1 : 1));
}
