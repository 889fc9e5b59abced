/**
 * Personal access tokens, keyed by their public id. Only a SHA-256 of the secret is stored: the
 * secret has 256 bits of randomness, so a fast hash is enough (no password to stretch), and a
 * copy of the database gives no usable token. Expired tokens are never returned: reading one
 * deletes it.
 */
import crypto from 'node:crypto';
import type { Database } from '../db.ts';

export interface AccessTokenRecord {
  /** Public, random, URL-safe; part of the token string. */
  id: string;
  userID: number;
  name: string;
  /** SHA-256 of the secret part, hex. */
  secretHash: string;
  /** Epoch seconds. */
  created: number;
  /** Epoch seconds; 0 = never. */
  expires: number;
  /** Epoch seconds of the last accepted use; 0 = never used. */
  lastUsed: number;
  readOnly: boolean;
  /** Virtual folder inside the user's scope ('' = the whole scope). */
  path: string;
  /** The user's sessionEpoch at creation: a password change (which bumps it) ends the token. */
  epoch: number;
}

const ID_BYTES = 9;
const ID_RE = /^[A-Za-z0-9_-]{12}$/;
const key = (id: string) => `t:${id}`;

export const nowSeconds = () => Math.floor(Date.now() / 1000);
const isExpired = (t: AccessTokenRecord, now = nowSeconds()) => t.expires !== 0 && t.expires <= now;

export class AccessTokensRepo {
  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('tokens');
  }

  /** The live token with this id; an expired one is deleted and reported missing. */
  async get(id: string): Promise<AccessTokenRecord | undefined> {
    if (!ID_RE.test(id)) return undefined;
    const t = await this.kv.get<AccessTokenRecord>(key(id));
    if (!t || t.id !== id) return undefined;
    if (isExpired(t)) {
      await this.kv.delete(key(id));
      return undefined;
    }
    return t;
  }

  /** Every live token, oldest first (expired ones are deleted on the way). */
  async list(): Promise<AccessTokenRecord[]> {
    const now = nowSeconds();
    const live: AccessTokenRecord[] = [];
    for (const [k, t] of await this.db.entries<AccessTokenRecord>('tokens')) {
      if (!k.startsWith('t:') || !t || typeof t.id !== 'string') continue;
      if (isExpired(t, now)) await this.kv.delete(k);
      else live.push(t);
    }
    return live.sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
  }

  /** Stores a new token under a fresh random id; `created` is the caller's, from the same clock reading as its expiry. */
  async create(data: Omit<AccessTokenRecord, 'id' | 'lastUsed'>): Promise<AccessTokenRecord> {
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = crypto.randomBytes(ID_BYTES).toString('base64url');
      // A leading "-" would read as an option on command lines (`fm tokens rm <id>`).
      if (id.startsWith('-') || (await this.kv.get(key(id)))) continue;
      const record: AccessTokenRecord = { ...data, id, lastUsed: 0 };
      await this.kv.set(key(id), record);
      return record;
    }
    throw new Error('could not draw a unique token id');
  }

  async update(record: AccessTokenRecord): Promise<void> {
    await this.kv.set(key(record.id), record);
  }

  /** Deletes exactly this id; true when it existed. */
  async delete(id: string): Promise<boolean> {
    if (!ID_RE.test(id)) return false;
    return this.kv.delete(key(id));
  }

  async deleteByUser(userID: number): Promise<number> {
    const doomed = (await this.list()).filter((t) => t.userID === userID);
    for (const t of doomed) await this.kv.delete(key(t.id));
    return doomed.length;
  }
}
