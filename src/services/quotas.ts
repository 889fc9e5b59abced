/**
 * Per-user quotas (docs/quotas.md): a byte quota and an entry quota over the user's scope. A
 * write asks for room before it accepts a byte; the room it was given stays reserved until its
 * bytes are counted in the scope's usage (the file event that announces them has run), so two
 * writes in parallel cannot both take the last of the quota. Every write path goes through here:
 * resources PUT/POST and copy, tus creation, WebDAV, upload links (as the link's owner), restores.
 */
import path from 'node:path';
import { formatSize } from '../api/size.ts';
import { FmError } from '../errors.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Target } from './files/gate.ts';
import { realPath } from './files/disk/lookup.ts';
import type { FolderUsage, Usage } from './quota-usage.ts';
import { cleanScope } from './scope.ts';

/** 507 `quota`: the write would take the user over their quota (the message names it). */
export class QuotaError extends FmError {
  constructor(message: string) {
    super(507, 'quota', message);
  }
}

/** What a write adds to a scope: bytes (negative when it shrinks a file) and entries. */
export interface Room {
  bytes: number;
  files: number;
}

/** Room held for a write in progress; `release` once its bytes are counted (or it failed). */
export class Reservation {
  constructor(
    private readonly quotas: QuotaService | undefined,
    readonly user: UserRecord,
    readonly folder: string,
    public bytes: number,
    public files: number,
  ) {}

  /** Grows the reservation to `bytes` in all (a body of unknown length, chunk by chunk); 507 past the quota. */
  cover(bytes: number): void {
    if (!this.quotas || bytes <= this.bytes) return;
    this.quotas.check(this.user, this.folder, { bytes: bytes - this.bytes, files: 0 });
    this.bytes = bytes;
  }

  release(): void {
    this.quotas?.release(this);
  }
}

export class QuotaService {
  private readonly held = new Map<string, Set<Reservation>>();
  /** The figures each check last saw per folder, for checks that cannot wait (a chunk being written). */
  private readonly lastSeen = new Map<string, Usage>();

  constructor(
    /** The server root (real path); '' in the CLI, which writes no files. */
    private readonly root: string,
    private readonly usage: FolderUsage,
  ) {}

  static hasQuota(user: UserRecord): boolean {
    return user.quota > 0 || user.quotaFiles > 0;
  }

  /** The real folder of a user's scope (undefined when it does not exist yet: nothing is used). */
  async scopeFolder(user: UserRecord): Promise<string | undefined> {
    try {
      return await realPath(path.join(this.root, cleanScope(user.scope || '.')));
    } catch {
      return undefined;
    }
  }

  /** Bytes and entries in the user's scope (shared by every user with the same scope). */
  async usageOf(user: UserRecord): Promise<Usage> {
    const folder = await this.scopeFolder(user);
    return folder ? this.usage.of(folder) : { bytes: 0, files: 0 };
  }

  /** What copying `src` over `replaced` (an existing destination, or none) adds. */
  async roomForCopy(src: Target, replaced?: Target): Promise<Room> {
    const [a, b] = await Promise.all([this.sizeOf(src), replaced ? this.sizeOf(replaced) : { bytes: 0, files: 0 }]);
    return { bytes: a.bytes - b.bytes, files: a.files - b.files };
  }

  /** Throws a 507 `quota` error when `add` does not fit in the user's quota next to what is used and reserved. */
  async assertRoom(user: UserRecord, add: { bytes: number; files: number }): Promise<void> {
    if (!QuotaService.hasQuota(user) || (add.bytes <= 0 && add.files <= 0)) return;
    const folder = await this.scopeFolder(user);
    if (!folder) return this.check(user, '', add, { bytes: 0, files: 0 });
    this.check(user, folder, add, await this.usage.of(folder));
  }

  /** Checks like assertRoom and holds the room until `release()`; a no-op reservation for users without a quota. */
  async reserve(user: UserRecord, add: Room): Promise<Reservation> {
    if (!QuotaService.hasQuota(user)) return new Reservation(undefined, user, '', 0, 0);
    const folder = (await this.scopeFolder(user)) ?? '';
    const used = folder ? await this.usage.of(folder) : { bytes: 0, files: 0 };
    const room = { bytes: Math.max(0, add.bytes), files: Math.max(0, add.files) };
    // No await between the check and the hold: a parallel write sees this reservation.
    this.check(user, folder, room, used);
    const r = new Reservation(this, user, folder, room.bytes, room.files);
    const set = this.held.get(folder) ?? new Set<Reservation>();
    this.held.set(folder, set.add(r));
    return r;
  }

  /** @internal Reservation.release */
  release(r: Reservation): void {
    const set = this.held.get(r.folder);
    if (set?.delete(r) && set.size === 0) this.held.delete(r.folder);
  }

  /** @internal The check itself, synchronous: used figures (given, or the latest known) + reserved + add within the quota. */
  check(user: UserRecord, folder: string, add: Room, used?: Usage): void {
    const now = used ?? (folder ? this.usage.peek(folder) : undefined) ?? this.lastSeen.get(folder) ?? { bytes: 0, files: 0 };
    if (folder) this.lastSeen.set(folder, now);
    let reservedBytes = 0;
    let reservedFiles = 0;
    for (const r of this.held.get(folder) ?? []) {
      reservedBytes += r.bytes;
      reservedFiles += r.files;
    }
    if (user.quota > 0 && add.bytes > 0 && now.bytes + reservedBytes + add.bytes > user.quota) {
      const busy = reservedBytes ? `, ${formatSize(reservedBytes)} being written` : '';
      throw new QuotaError(
        `over quota: ${formatSize(user.quota)} for ${user.username}, ${formatSize(now.bytes)} used${busy}; this needs ${formatSize(add.bytes)} more`,
      );
    }
    if (user.quotaFiles > 0 && add.files > 0 && now.files + reservedFiles + add.files > user.quotaFiles) {
      throw new QuotaError(`over quota: ${user.quotaFiles} files for ${user.username}, ${now.files + reservedFiles} used; this needs ${add.files} more`);
    }
  }

  /** Bytes and entries of a file (1) or a folder (itself and everything under it). */
  private async sizeOf(t: Target): Promise<Usage> {
    if (!t.isDir) return { bytes: t.stat?.size ?? 0, files: 1 };
    const inside = await this.usage.of(t.real);
    return { bytes: inside.bytes, files: inside.files + 1 };
  }
}
