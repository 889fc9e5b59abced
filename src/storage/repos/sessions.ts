/** Revoked token ids, kept until the token would have expired anyway. */
import type { Database } from '../db.ts';

export class SessionsRepo {
  constructor(private readonly db: Database) {}

  async revoke(jti: string, expiresAtSeconds: number): Promise<void> {
    const ttl = Math.max(1000, expiresAtSeconds * 1000 - Date.now());
    await this.db.ns('sessions').set(`revoked:${jti}`, true, ttl);
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.db.ns('sessions').get(`revoked:${jti}`)) === true;
  }
}
