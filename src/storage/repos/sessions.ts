/**
 * Revoked token ids, kept until the token would have expired anyway. A revocation also holds
 * in this process's memory from the moment it is made, so it applies at once even when the
 * database cannot store it (a full disk); only the stored ones survive a restart.
 */
import type { Database } from '../db.ts';

export class SessionsRepo {
  /** jti → when the token expires (ms). */
  private readonly held = new Map<string, number>();

  constructor(private readonly db: Database) {}

  /** Revokes a token; throws when it cannot be stored, but it is revoked in this process anyway. */
  async revoke(jti: string, expiresAtSeconds: number): Promise<void> {
    const expiresAt = expiresAtSeconds * 1000;
    this.hold(jti, expiresAt);
    const ttl = Math.max(1000, expiresAt - Date.now());
    await this.db.ns('sessions').set(`revoked:${jti}`, true, ttl);
  }

  async isRevoked(jti: string): Promise<boolean> {
    const until = this.held.get(jti);
    if (until !== undefined) {
      if (until > Date.now()) return true;
      this.held.delete(jti);
    }
    return (await this.db.ns('sessions').get(`revoked:${jti}`)) === true;
  }

  private hold(jti: string, expiresAt: number): void {
    if (this.held.size >= 10_000) {
      const now = Date.now();
      for (const [k, until] of this.held) if (until <= now) this.held.delete(k);
    }
    this.held.set(jti, expiresAt);
  }
}
