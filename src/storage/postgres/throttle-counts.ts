/**
 * Throttling counters every instance shares (table fm_throttle): a failure counted on one
 * instance counts on all, so a balancer spreading guesses over instances gains nothing.
 */
import type { ThrottleCounts, ThrottleRecord } from '../cluster.ts';

type Run = <T>(sql: string, values?: unknown[]) => Promise<T[]>;

interface Row {
  key: string;
  failures: number;
  first_at: string;
  locked_until: string;
}

export class PgThrottleCounts implements ThrottleCounts {
  constructor(private readonly run: Run) {}

  async read(scope: string, keys: string[]): Promise<Map<string, ThrottleRecord>> {
    const rows = await this.run<Row>('SELECT key, failures, first_at, locked_until FROM fm_throttle WHERE scope = $1 AND key = ANY($2)', [scope, keys]);
    return new Map(rows.map((r) => [r.key, { failures: r.failures, first: Number(r.first_at), lockedUntil: Number(r.locked_until) }]));
  }

  async fail(scope: string, key: string, now: number, windowMs: number, lockAfter: number, lockMs: number): Promise<void> {
    // One statement: a window that ended starts afresh, and the lock is set by the failure that reaches the limit.
    await this.run(
      `INSERT INTO fm_throttle AS t (scope, key, failures, first_at, locked_until)
       VALUES ($1, $2, 1, $3::bigint, CASE WHEN 1 >= $5::integer THEN $3::bigint + $6::bigint ELSE 0 END)
       ON CONFLICT (scope, key) DO UPDATE SET
         failures = CASE WHEN $3::bigint - t.first_at > $4::bigint AND t.locked_until <= $3::bigint THEN 1 ELSE t.failures + 1 END,
         first_at = CASE WHEN $3::bigint - t.first_at > $4::bigint AND t.locked_until <= $3::bigint THEN $3::bigint ELSE t.first_at END,
         locked_until = CASE
           WHEN (CASE WHEN $3::bigint - t.first_at > $4::bigint AND t.locked_until <= $3::bigint THEN 1 ELSE t.failures + 1 END) >= $5::integer
           THEN $3::bigint + $6::bigint ELSE t.locked_until END`,
      [scope, key, now, windowMs, lockAfter, lockMs],
    );
  }

  async clear(scope: string, keys: string[]): Promise<void> {
    await this.run('DELETE FROM fm_throttle WHERE scope = $1 AND key = ANY($2)', [scope, keys]);
  }
}
