/**
 * Advisory locks between instances, held on one connection of their own: a lock lives as long
 * as the session that took it, so the pool (which hands connections around) cannot hold them,
 * and an instance that dies (kill -9) lets go of its locks with its connection.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { LOCK_SPACE } from './schema.ts';
import { DatabaseUnavailableError } from './unavailable.ts';

export class AdvisoryLocks {
  private client?: Promise<pg.Client>;

  constructor(
    private readonly url: string,
    private readonly clean: (message: string) => string,
  ) {}

  /** The lock's release, or undefined when another session holds it. */
  async tryLock(name: string): Promise<(() => Promise<void>) | undefined> {
    const key = crypto.createHash('sha256').update(name).digest().readInt32BE(0);
    const client = await this.connection();
    let ok: boolean;
    try {
      ok = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_SPACE, key])).rows[0].ok;
    } catch (err) {
      this.drop(client);
      throw new DatabaseUnavailableError(this.clean((err as Error).message));
    }
    if (!ok) return undefined;
    return async () => {
      // A connection lost meanwhile took the lock with it.
      await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_SPACE, key]).catch(() => {});
    };
  }

  private connection(): Promise<pg.Client> {
    this.client ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true });
      client.on('error', () => this.drop(client));
      client.on('end', () => this.drop(client));
      try {
        await client.connect();
      } catch (err) {
        this.client = undefined;
        throw new DatabaseUnavailableError(this.clean((err as Error).message));
      }
      return client;
    })();
    return this.client;
  }

  private drop(client: pg.Client): void {
    void this.client?.then((current) => {
      if (current === client) this.client = undefined;
    });
    void client.end().catch(() => {});
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
