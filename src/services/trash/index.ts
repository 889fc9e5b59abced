/**
 * The trash (docs/trash.md): with `trashRetention` > 0 a delete moves the item into its owner's
 * trash on the same file system (disk/trash.ts), where it stays until restored, deleted for
 * good, emptied or expired. Restore goes through the gate with the owner's access of now.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { TrashItem } from '../../api/trash.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { Logger, Repos } from '../context.ts';
import type { FileEvents } from '../events.ts';
import type { HookRunner } from '../hooks.ts';
import type { QuotaService } from '../quotas.ts';
import { isInside } from '../files/disk/handle.ts';
import { lstatOrMissing } from '../files/disk/lookup.ts';
import { type Bin, TRASH_DIR, type TrashRecord, binOwners, moveIn, mountsInside, openBin, purge, reconcile, writeRecord } from '../files/disk/trash.ts';
import { moveEntry, removeEntry } from '../files/disk/tree.ts';
import { type Access, type Gate, type Target, walk } from '../files/gate.ts';
import { freeName } from '../files/operations.ts';

/** Entries measured at most when the index cannot tell a folder's size (size and count are then lower bounds). */
const MEASURE_LIMIT = 100_000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

export interface TrashDeps {
  gate: Gate;
  hooks: HookRunner;
  events: FileEvents;
  repos: Repos;
  log: Logger;
  /** A folder's total size and entries from the search index, when it has them. */
  treeUsage?: (abs: string) => { bytes: number; files: number } | undefined;
  /** The owner's quota, checked (and held) before a restore moves anything. */
  quotas?: Pick<QuotaService, 'reserve'>;
}

export interface RestoreOptions {
  /** On a clash, restore as `name (1).ext`. */
  rename?: boolean;
  /** On a clash, replace what is there (which goes to the trash itself). */
  override?: boolean;
}

/** The admin CLI acts for the owner without the owner's delete permission. */
export interface AdminOption {
  asAdmin?: boolean;
}

/** One item found in a user's bin. */
interface Found {
  bin: Bin;
  item: TrashItem;
  /** The entries below a folder, when its record says. */
  entries: number;
}

function itemOf(e: Awaited<ReturnType<typeof reconcile>>[number]): TrashItem {
  return {
    id: e.id,
    name: e.record?.name ?? e.id,
    path: e.record?.path ?? '',
    deleted: new Date(e.record?.deleted ?? e.lstat.ctimeMs).toISOString(),
    size: e.record?.size ?? e.lstat.size,
    isDir: e.record?.isDir ?? e.lstat.isDirectory(),
  };
}

export class TrashService {
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: TrashDeps) {
    this.tops();
  }

  /** Where trash folders may be: the served root and every mount point inside it (each trash folder protected by the gate). */
  private tops(): string[] {
    const root = this.deps.gate.root;
    const tops = root ? [root, ...mountsInside(root)] : [];
    for (const top of tops) this.deps.gate.protect(path.join(top, TRASH_DIR));
    return tops;
  }

  /** The top of the file system holding `abs`'s folder: the deepest mount point above it, else the root. */
  private topOf(abs: string): string {
    const parent = path.dirname(abs);
    let best = this.deps.gate.root;
    for (const m of mountsInside(best)) if (isInside(m, parent) && m.length > best.length) best = m;
    return best;
  }

  /** Moves a target the gate resolved for `delete` into its owner's trash. The caller runs the hooks and announces the removal. */
  async put(target: Target): Promise<void> {
    const { gate } = this.deps;
    const top = this.topOf(target.abs);
    gate.protect(path.join(top, TRASH_DIR));
    const { bytes, entries } = await this.measure(target);
    const record: TrashRecord = {
      name: path.basename(target.abs),
      path: target.scopePath,
      deleted: Date.now(),
      size: bytes,
      isDir: target.isDir,
      ...(target.isDir && { entries }),
    };
    const bin = (await openBin(top, target.access.user.id, true))!;
    try {
      const id = crypto.randomBytes(9).toString('hex');
      await writeRecord(bin, id, record);
      try {
        await gate.withParent(target, { entry: true }, (dir, name) => moveIn(dir, name, bin, id));
      } catch (err) {
        await bin.info.unlink(`${id}.json`).catch(() => {});
        throw err;
      }
    } finally {
      await bin.close();
    }
  }

  /** The user's items, newest first (reconciled: see disk/trash.ts). */
  async list(user: UserRecord): Promise<TrashItem[]> {
    const out: TrashItem[] = [];
    for (const top of this.tops()) {
      const bin = await openBin(top, user.id, false);
      if (!bin) continue;
      try {
        out.push(...(await this.listBin(bin)));
      } finally {
        await bin.close();
      }
    }
    return out.sort((a, b) => b.deleted.localeCompare(a.deleted) || a.name.localeCompare(b.name));
  }

  /** Opens the bin holding `id` (the caller closes it); 404 when the user has no such item. */
  private async find(user: UserRecord, id: string): Promise<Found> {
    for (const top of this.tops()) {
      const bin = await openBin(top, user.id, false);
      if (!bin) continue;
      const found = (await reconcile(bin)).find((e) => e.id === id);
      if (found) return { bin, item: itemOf(found), entries: found.record?.entries ?? 0 };
      await bin.close();
    }
    throw new NotFoundError('no such item in the trash');
  }

  private async listBin(bin: Bin): Promise<TrashItem[]> {
    return (await reconcile(bin)).map(itemOf);
  }

  /** The owner of an item (the CLI names items by id alone). */
  async ownerOf(id: string): Promise<number> {
    for (const top of this.tops()) {
      for (const uid of await binOwners(top)) {
        const bin = await openBin(top, uid, false);
        if (!bin) continue;
        try {
          if (await bin.files.lstatOrMissing(id).catch(() => undefined)) return uid;
        } finally {
          await bin.close();
        }
      }
    }
    throw new NotFoundError('no such item in the trash');
  }

  /**
   * Restores an item to its original path, through the gate with the owner's access of now
   * (scope, rules, create permission). A clash is a 409 unless `rename` or `override`.
   * Returns the virtual path it was restored to.
   */
  async restoreItem(user: UserRecord, id: string, opts: RestoreOptions = {}): Promise<string> {
    const { gate, hooks, events } = this.deps;
    const access = await gate.access(user, await this.deps.repos.settings.get());
    gate.checkPermission(access, 'create');
    const { bin, item, entries } = await this.find(user, id);
    try {
      let dst = await gate.resolve(access, item.path || `/${item.name}`, 'create', { mustExist: false, allowRoot: false });
      let replace = false;
      if (dst.exists) {
        if (opts.rename) dst = await gate.resolve(access, await freeName(dst), 'create', { mustExist: false, allowRoot: false });
        else if (opts.override) {
          gate.checkPermission(access, 'modify');
          gate.checkPermission(access, 'delete');
          dst = await gate.resolve(access, dst.virtual, 'delete', { allowRoot: false });
          await gate.checkTree(dst);
          replace = true;
        } else throw new ConflictError(`${dst.virtual} exists`, 'exists');
      }
      // The item's bytes and entries come back into the scope (entries are not counted in the
      // trash). Held until the move is done, so parallel writes see it.
      const room = await this.deps.quotas?.reserve(user, { bytes: item.size, files: 1 + entries });
      try {
        await hooks.around({ event: 'upload', user, file: dst.abs, scope: access.rootReal, destination: access.rootReal }, async () => {
          if (replace) await this.replace(access, dst);
          await gate.withParent(dst, { entry: true, create: access.settings.dirMode }, (dir, name) => moveEntry(bin.files, id, dir, name, false));
        });
      } finally {
        room?.release();
      }
      await bin.info.unlink(`${id}.json`).catch(() => {});
      await events.emit('written', { abs: dst.abs, isDir: item.isDir, user });
      return dst.virtual;
    } finally {
      await bin.close();
    }
  }

  /** What a restore replaces goes to the trash too (or away, with the trash off). */
  private async replace(access: Access, dst: Target): Promise<void> {
    const { gate, events } = this.deps;
    if (access.settings.trashRetention > 0) await this.put(dst);
    else await gate.withParent(dst, { entry: true }, (dir, name) => removeEntry(dir, name));
    await events.emit('removed', { abs: dst.abs, isDir: dst.isDir, user: access.user });
  }

  /** Deletes an item for good (delete permission, unless the admin CLI asks). */
  async remove(user: UserRecord, id: string, opts: AdminOption = {}): Promise<void> {
    if (!opts.asAdmin) await this.checkDelete(user);
    const { bin } = await this.find(user, id);
    try {
      await purge(bin, id);
    } finally {
      await bin.close();
    }
  }

  /** Deletes every item of the user for good (delete permission); returns how many. */
  async empty(user: UserRecord, opts: AdminOption = {}): Promise<number> {
    if (!opts.asAdmin) await this.checkDelete(user);
    return this.purgeWhere(user.id, () => true);
  }

  /** A deleted user's trash goes with them. */
  async userDeleted(user: UserRecord): Promise<void> {
    await this.purgeWhere(user.id, () => true);
  }

  private async checkDelete(user: UserRecord): Promise<void> {
    const { gate } = this.deps;
    gate.checkPermission(await gate.access(user, await this.deps.repos.settings.get()), 'delete');
  }

  /**
   * Purges the items of every user older than the retention; none while the trash is off (0).
   * Every bin is read, so this also reconciles them after a crash (disk/trash.ts `reconcile`).
   */
  async purgeExpired(now = Date.now()): Promise<number> {
    const retention = (await this.deps.repos.settings.get()).trashRetention;
    const before = retention > 0 ? now - retention * 1000 : -Infinity;
    let n = 0;
    const owners = new Set<number>();
    for (const top of this.tops()) for (const uid of await binOwners(top)) owners.add(uid);
    for (const uid of owners) n += await this.purgeWhere(uid, (item) => Date.parse(item.deleted) < before);
    return n;
  }

  private async purgeWhere(userId: number, pick: (item: TrashItem) => boolean): Promise<number> {
    let n = 0;
    for (const top of this.tops()) {
      const bin = await openBin(top, userId, false);
      if (!bin) continue;
      try {
        for (const item of await this.listBin(bin)) {
          if (!pick(item)) continue;
          await purge(bin, item.id);
          n++;
        }
      } finally {
        await bin.close();
      }
    }
    return n;
  }

  /** Purges expired items now and every hour (`fm serve`). */
  start(): void {
    if (this.timer || !this.deps.gate.root) return;
    const run = () =>
      void this.purgeExpired().then(
        (n) => n && this.deps.log.info(`trash: purged ${n} expired item(s)`),
        (err) => this.deps.log.warn(`trash purge: ${(err as Error).message}`),
      );
    run();
    this.timer = setInterval(run, PURGE_EVERY_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  /** Bytes of a target: a file's size; a folder's from the index, else counted (bounded). */
  /** A file's bytes, or a folder's bytes and entries below it. */
  private async measure(target: Target): Promise<{ bytes: number; entries: number }> {
    if (!target.isDir) return { bytes: target.lstat?.size ?? 0, entries: 0 };
    const indexed = this.deps.treeUsage?.(target.abs);
    if (indexed) return { bytes: indexed.bytes, entries: indexed.files };
    let bytes = 0;
    let entries = 0;
    for await (const e of walk(target.abs, '/')) {
      if (++entries > MEASURE_LIMIT) break;
      if (!e.dirent.isDirectory()) bytes += (await lstatOrMissing(e.abs))?.size ?? 0;
    }
    return { bytes, entries: Math.min(entries, MEASURE_LIMIT) };
  }
}
