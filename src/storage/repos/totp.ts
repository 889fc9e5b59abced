/**
 * Two-factor login state, one record per user. The secret is sealed (storage/secret-box.ts),
 * recovery codes are kept as keyed hashes, and the last accepted time step is kept so that a
 * code cannot be used twice.
 */
import type { Database } from '../db.ts';

export interface TotpRecord {
  userID: number;
  /** The sealed base32 secret. */
  secret: string;
  /** False while the enrolment waits for its first valid code; a pending record signs nobody in. */
  confirmed: boolean;
  /** Keyed hashes (hex) of the unused recovery codes. */
  recoveryHashes: string[];
  /** The time step (epoch seconds / 30) of the last accepted code; codes of this step or earlier are refused. */
  lastStep: number;
  /** Epoch seconds. */
  created: number;
}

const key = (userID: number) => `u:${userID}`;

export class TotpRepo {
  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('totp');
  }

  async get(userID: number): Promise<TotpRecord | undefined> {
    if (!Number.isSafeInteger(userID) || userID <= 0) return undefined;
    const r = await this.kv.get<TotpRecord>(key(userID));
    return r && r.userID === userID ? r : undefined;
  }

  async set(record: TotpRecord): Promise<void> {
    await this.kv.set(key(record.userID), record);
  }

  /** True when there was a record. */
  async delete(userID: number): Promise<boolean> {
    return this.kv.delete(key(userID));
  }
}
