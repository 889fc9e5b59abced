/**
 * The audit log: who did what, from where, with which result. `record` only queues (a request
 * never waits for the database); the queue is written in one batch every FLUSH_MS, or at once
 * when BATCH entries wait, and on shutdown. A batch the database refuses (disk full, failing
 * database) is dropped and counted: file operations go on, the count is logged and shown on
 * the Activity page (docs/audit.md, "When the database cannot write"). Entries older than the
 * retention (settings.auditRetention) are pruned in the background, at most once an hour.
 */
import type { AuditAction, AuditEntry, AuditStatus } from '../api/audit.ts';
import { AUDIT_DEFAULT_RETENTION } from '../api/audit.ts';
import type { AuditFilter, AuditRecord, AuditRepo } from '../storage/repos/audit.ts';
import type { Logger } from './context.ts';

/** What a caller says about one action; the service adds the time. */
export interface AuditInput {
  action: AuditAction;
  actorId?: number | null;
  actor?: string | null;
  share?: string | null;
  address?: string | null;
  path?: string | null;
  dest?: string | null;
  bytes?: number | null;
  status?: number | null;
  detail?: string | null;
  duration?: number | null;
}

export interface AuditOptions {
  /** Seconds an entry is kept (read at each pruning, so a settings change applies). */
  retention: () => Promise<number>;
  log: Logger;
  flushMs?: number;
  batch?: number;
  /** Entries waiting beyond this are dropped and counted (a database that hangs must not eat memory). */
  maxPending?: number;
}

const FLUSH_MS = 200;
const BATCH = 500;
const MAX_PENDING = 50_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export class AuditLog {
  private pending: AuditRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastTime = 0;
  private lastPrune = 0;
  private lostCount = 0;

  constructor(
    private readonly repo: AuditRepo,
    private readonly opts: AuditOptions,
  ) {}

  /** Queues one entry; never throws, never waits. */
  record(input: AuditInput): void {
    if (this.pending.length >= (this.opts.maxPending ?? MAX_PENDING)) {
      this.lose(1, 'too many entries waiting for the database');
      return;
    }
    // Microseconds, strictly increasing in this process: the log's order.
    this.lastTime = Math.max(Date.now() * 1000, this.lastTime + 1);
    this.pending.push({
      time: this.lastTime,
      actorId: input.actorId ?? null,
      // A failed login's name is whatever was sent (up to the body limit): kept short.
      actor: clip(input.actor, 256),
      share: input.share ?? null,
      address: input.address ?? null,
      action: input.action,
      path: input.path ?? null,
      dest: input.dest ?? null,
      bytes: input.bytes ?? null,
      status: input.status ?? null,
      detail: clip(input.detail, 4096),
      duration: input.duration ?? null,
    });
    if (this.pending.length >= (this.opts.batch ?? BATCH)) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs ?? FLUSH_MS).unref();
  }

  /** Writes what is queued; resolves once it is written (or counted as lost). Never throws. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    // One write at a time, in order.
    this.writing = this.writing.then(async () => {
      if (batch.length > 0) {
        try {
          await this.repo.append(batch);
        } catch (err) {
          this.lose(batch.length, (err as Error).message);
        }
      }
      await this.pruneIfDue();
    });
    return this.writing;
  }

  /** Entries that match, newest first (after writing what is queued, so a reader sees its own actions). */
  async find(filter: AuditFilter, page: { limit: number; offset: number }): Promise<{ entries: AuditEntry[]; total: number }> {
    await this.flush();
    const { records, total } = await this.repo.find(filter, page);
    return { entries: records.map(toEntry), total };
  }

  async status(): Promise<AuditStatus> {
    return { lost: this.lostCount, retentionDays: Math.round((await this.retention()) / 86_400) };
  }

  /** Entries not written since this process started. */
  get lost(): number {
    return this.lostCount;
  }

  /** Flushes and stops (shutdown). */
  close(): Promise<void> {
    return this.flush();
  }

  private lose(n: number, why: string): void {
    this.lostCount += n;
    this.opts.log.error(`audit log: ${n} entr${n === 1 ? 'y' : 'ies'} not written (${why}); ${this.lostCount} lost since start`);
  }

  private async retention(): Promise<number> {
    try {
      return await this.opts.retention();
    } catch {
      return AUDIT_DEFAULT_RETENTION;
    }
  }

  private async pruneIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    try {
      await this.repo.pruneBefore(now - (await this.retention()) * 1000);
    } catch (err) {
      this.opts.log.warn(`audit log: pruning failed: ${(err as Error).message}`);
    }
  }
}

function clip(s: string | null | undefined, max: number): string | null {
  if (s === undefined || s === null) return null;
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export function toEntry(r: AuditRecord): AuditEntry {
  return {
    time: new Date(Math.floor(r.time / 1000)).toISOString(),
    actor: r.actor,
    share: r.share,
    address: r.address,
    action: r.action,
    path: r.path,
    dest: r.dest,
    bytes: r.bytes,
    status: r.status,
    detail: r.detail,
    duration: r.duration,
  };
}
