/**
 * Resumable uploads (the tus protocol's state machine, without HTTP). An upload is addressed by
 * its target file: one unfinished upload per target, owned by the user who created it. Bytes go
 * to the staging folder, are fdatasynced every 64 MiB and before the last chunk is acknowledged
 * (durability.ts), and the finished file is moved into place in one rename, with the `upload`
 * hooks around the move.
 */
import type { Readable } from 'node:stream';
import { BadRequestError, ConflictError, FmError, InsufficientStorageError, LockedError, NotFoundError, PayloadTooLargeError } from '../../errors.ts';
import type { SharedSettings } from '../../api/settings.ts';
import type { Services } from '../index.ts';
import type { Target } from '../files/gate.ts';
import type { PartialJournal } from '../files/disk/partials.ts';
import { placeFile } from '../files/disk/place.ts';
import { placeUnderFreeName } from '../files/free-target.ts';
import type { Stats } from '../files/disk/types.ts';
import { type DiskSpace, freeBytesFor } from './disk.ts';
import { appendChunk } from './append.ts';
import { Flushes } from './flushes.ts';
import { UploadLocks } from './locks.ts';
import type { Cluster } from '../../storage/cluster.ts';
import type { Staging, UploadRecord, UploadSyncOptions } from './staging.ts';
import { durableOffset, type SyncMode, trustedOffset } from './durability.ts';
import type { Reservation } from '../quotas.ts';

/** What HEAD and PATCH report. */
export interface UploadStatus {
  offset: number;
  length: number;
  metadata: string;
  /** When the upload will be discarded if nothing more arrives (undefined once finished). */
  expires?: Date;
  /** The file is in place. */
  finished: boolean;
}

export interface CreateInput {
  length: number;
  override: boolean;
  metadata: string;
  /** Address the upload by this staging id instead of its target, with its tag (drop links). */
  ref?: UploadRef;
  /** Place the finished file under a free name (`name (1).ext`) when its own is taken. */
  freeName?: boolean;
}

/** An upload addressed by id (drop links, services/drops/): only requests with the same tag reach it. */
export interface UploadRef {
  id: string;
  tag: string;
}

type Deps = Pick<Services, 'hooks' | 'events' | 'gate' | 'log' | 'repos' | 'quotas'>;

/** An unfinished upload file without a record (or the reverse) is removed after this long. */
const ORPHAN_GRACE_MS = 60_000;
/** The sweeper's period; creations also sweep when the last sweep is older than the expiry. */
const SWEEP_EVERY_MS = 60_000;
/** How often temporary files of writes that will never finish are looked for (disk/partials.ts). */
const PARTIALS_SWEEP_EVERY_MS = 60 * 60_000;

/** 409 with the offset the client should resume from. */
function offsetConflict(offset: number): FmError {
  return new FmError(409, 'conflict', `Upload-Offset does not match the upload's offset ${offset}`, { 'Upload-Offset': String(offset) });
}

export class UploadService {
  private readonly locks = new UploadLocks();
  /** Background fdatasyncs of parts between acknowledgements (flushes.ts). */
  private readonly flushes = new Flushes();
  /** The quota room each unfinished upload holds for its declared length, by upload id (in memory). */
  private readonly rooms = new Map<string, Reservation>();
  private lastSweep = 0;
  private timer?: NodeJS.Timeout;
  private firstSweep?: NodeJS.Timeout;
  private partialsTimer?: NodeJS.Timeout;
  private syncMode?: Promise<SyncMode>;

  constructor(
    private readonly deps: () => Deps,
    readonly staging: Staging,
    private readonly disk: DiskSpace,
    /** Journal of temporary files beside targets (swept here, at start-up and hourly). */
    private readonly partials?: PartialJournal,
    /** Several instances on one staging folder (PostgreSQL): the lock that keeps the others from appending. */
    private readonly sharedLock?: Cluster['tryLock'],
    private readonly syncOptions?: UploadSyncOptions,
  ) {}

  /** How this instance makes parts durable (decided once, on the staging folder's file system). */
  private mode(): Promise<SyncMode> {
    this.syncMode ??= this.staging.syncMode(this.syncOptions).catch((err: unknown) => {
      this.syncMode = undefined;
      throw err;
    });
    return this.syncMode;
  }

  /**
   * Starts the periodic sweeps: stale uploads (first run shortly after start-up) and temporary
   * files left by writes that will never finish (at once, then hourly); idempotent.
   */
  start(): void {
    if (this.timer || !this.staging.dir) return;
    const run = () => void this.sweep().catch((err) => this.deps().log.warn(`upload sweep: ${(err as Error).message}`));
    this.firstSweep = setTimeout(run, 1_000);
    this.firstSweep.unref();
    this.timer = setInterval(run, SWEEP_EVERY_MS);
    this.timer.unref();
    if (this.partials) {
      const partials = this.partials;
      const sweepPartials = () =>
        void partials.sweep().then(
          (n) => n && this.deps().log.info(`removed ${n} temporary file(s) of interrupted writes`),
          (err) => this.deps().log.warn(`temporary files sweep: ${(err as Error).message}`),
        );
      sweepPartials();
      this.partialsTimer = setInterval(sweepPartials, PARTIALS_SWEEP_EVERY_MS);
      this.partialsTimer.unref();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.firstSweep);
    clearInterval(this.timer);
    clearInterval(this.partialsTimer);
    await this.partials?.close();
  }

  /**
   * Creates an upload for a target resolved with the `create` op. Checks, in order: folder
   * (400), existing file without override (409), override without modify (403) (none of these
   * three for a free-name upload, whose name is settled when it finishes), the instance maximum
   * (413), free space (507). A zero-length upload is finished at once.
   */
  async create(target: Target, input: CreateInput): Promise<UploadStatus> {
    const { access } = target;
    const settings = access.settings;
    if (target.isDir && !input.freeName) throw new BadRequestError('a folder exists at that path');
    if (target.exists && !input.override && !input.freeName) throw new ConflictError('a file with that name exists');
    if (target.exists && !input.freeName) {
      // A link inside the scope is written through, like PUT (its target must be a regular file).
      if (!target.stat?.isFile()) throw new BadRequestError('only regular files can be replaced');
      this.deps().gate.checkPermission(access, 'modify');
    }
    if (settings.maxUploadSize > 0 && input.length > settings.maxUploadSize) {
      throw new PayloadTooLargeError(`uploads are limited to ${settings.maxUploadSize} bytes`);
    }
    await this.sweepIfDue(settings);
    const mode = await this.mode();
    if (input.length > (await freeBytesFor(this.disk, this.staging.dir, target.abs)))
      throw new InsufficientStorageError('not enough free disk space for this upload');

    const id = input.ref?.id ?? this.staging.idFor(target.abs);
    const previous = await this.staging.read(id);
    if (previous && previous.userId !== access.user.id && !this.isExpired(previous, await this.staging.stat(id), settings)) {
      throw new LockedError('another user is uploading to this path');
    }
    const release = await this.locks.takeOver(id);
    try {
      await this.staging.remove(id);
      this.releaseRoom(id);
      // Only the difference to a replaced file counts; under a free name nothing is replaced.
      const replacing = target.exists && !input.freeName;
      const replaced = replacing ? (target.stat?.size ?? 0) : 0;
      const room = await this.deps().quotas.reserve(access.user, { bytes: input.length - replaced, files: replacing ? 0 : 1 });
      this.rooms.set(id, room);
      const rec: UploadRecord = {
        v: 1,
        id,
        target: target.abs,
        virtual: target.virtual,
        userId: access.user.id,
        length: input.length,
        override: input.override,
        metadata: input.metadata,
        createdAt: Date.now(),
        ...(input.ref ? { tag: input.ref.tag } : {}),
        ...(input.freeName ? { freeName: true } : {}),
        ...(mode.every > 0 && mode.boot ? { synced: { boot: mode.boot, host: mode.host, offset: 0 } } : {}),
      };
      await this.staging.create(rec).catch((err: unknown) => {
        this.releaseRoom(id);
        throw err;
      });
      if (input.length === 0) {
        await this.finish(rec, target);
        return { offset: 0, length: 0, metadata: rec.metadata, finished: true };
      }
      return { offset: 0, length: rec.length, metadata: rec.metadata, finished: false, expires: this.expiresAt(Date.now(), settings) };
    } finally {
      release();
    }
  }

  /**
   * The upload's offset (HEAD). An upload last written under another boot of the machine is cut
   * back to its last fdatasync first. An upload whose bytes are all there but that was never
   * moved into place (a crash or a failure after the last chunk) is finished now.
   */
  async status(target: Target, ref?: UploadRef): Promise<UploadStatus> {
    const { rec, st } = await this.active(target, ref);
    const mode = await this.mode();
    const unfinished = (offset: number): UploadStatus => ({
      offset,
      length: rec.length,
      metadata: rec.metadata,
      finished: false,
      expires: this.expiresAt(st.mtimeMs, target.access.settings),
    });
    // The common case: this boot's upload (or one fsynced chunk by chunk), not complete.
    if (st.size < rec.length && trustedOffset(rec.synced, st.size, mode).record === undefined) return unfinished(st.size);
    return this.locked(rec.id, undefined, async () => {
      const now = await this.trusted(rec, mode);
      if (now.size < now.rec.length) return unfinished(now.size);
      // Its last chunk may have failed before its fdatasync: the file is made durable before it is placed.
      await this.staging.syncPart(rec.id);
      await this.finish(now.rec, target);
      return { offset: rec.length, length: rec.length, metadata: rec.metadata, finished: true };
    });
  }

  /**
   * Runs `fn` as the upload's one writer: 423 when another request holds it, in this instance
   * or (PostgreSQL) another one. `abort` lets a termination or re-creation stop it.
   */
  private async locked<T>(id: string, abort: (() => void) | undefined, fn: () => Promise<T>): Promise<T> {
    const release = this.locks.tryAcquire(id, abort);
    if (!release) throw new LockedError('another request is writing this upload');
    let releaseShared: (() => Promise<void>) | undefined;
    try {
      if (this.sharedLock) {
        releaseShared = await this.sharedLock(`upload:${id}`);
        if (!releaseShared) throw new LockedError('another instance is writing this upload');
      }
      return await fn();
    } finally {
      await releaseShared?.();
      release();
    }
  }

  /**
   * Appends a chunk (PATCH). The offset must be the current one (409); bytes past the declared
   * length are refused (413) and roll the chunk back; one writer at a time (423). The bytes are
   * in the part when this returns; it is fdatasynced in the background every 64 MiB (or before
   * every answer: durability.ts) and before the last chunk's; the last chunk moves the file into place.
   */
  async write(target: Target, offset: number, body: Readable, contentLength?: number, ref?: UploadRef): Promise<UploadStatus> {
    const { rec } = await this.active(target, ref);
    return this.locked(
      rec.id,
      () => body.destroy(new NotFoundError('the upload was terminated')),
      async () => {
        const mode = await this.mode();
        const { rec: cur, size } = await this.trusted(rec, mode);
        if (offset !== size) throw offsetConflict(size);
        const remaining = cur.length - size;
        if (contentLength !== undefined && contentLength > remaining) {
          throw new PayloadTooLargeError(`the chunk goes past the declared Upload-Length of ${cur.length}`);
        }
        const boot = mode.every > 0 ? mode.boot : undefined;
        const { written, synced } =
          remaining > 0
            ? await appendChunk(this.staging.partPath(rec.id), offset, remaining, body, boot === undefined, this.flushes.slots)
            : await this.staging.syncPart(rec.id).then(() => ({ written: 0, synced: true }));
        const now = offset + written;
        if (boot) {
          // The record follows the part's fdatasyncs (so a reboot cuts back no further than it must).
          const recorded = durableOffset(cur.synced, size, mode);
          const durable = synced ? now : this.flushes.afterChunk(rec.id, cur.createdAt, now, recorded, mode.every, () => this.staging.syncPart(rec.id));
          // The last chunk's fdatasync covered every byte; a background one that failed still fails it.
          if (synced) await this.flushes.settle(rec.id);
          if (durable > recorded) await this.staging.save({ ...cur, synced: { boot, host: mode.host, offset: durable } });
        }
        if (now === cur.length) {
          await this.finish(cur, target);
          return { offset: now, length: cur.length, metadata: cur.metadata, finished: true };
        }
        return { offset: now, length: rec.length, metadata: rec.metadata, finished: false, expires: this.expiresAt(Date.now(), target.access.settings) };
      },
    );
  }

  /** Terminates an upload (DELETE): stops a running chunk and removes the partial data. */
  async terminate(target: Target, ref?: UploadRef): Promise<void> {
    const { rec } = await this.active(target, ref);
    const release = await this.locks.takeOver(rec.id);
    try {
      await this.staging.remove(rec.id);
      this.releaseRoom(rec.id);
    } finally {
      release();
    }
  }

  /** Removes an upload addressed by id whose link is gone; only with the tag it was made with. */
  async discard(ref: UploadRef): Promise<void> {
    const rec = await this.staging.read(ref.id);
    if (!rec || rec.tag !== ref.tag) return;
    const release = await this.locks.takeOver(ref.id);
    try {
      await this.staging.remove(ref.id);
      this.releaseRoom(ref.id);
    } finally {
      release();
    }
  }

  /**
   * The upload's record and trusted size under the caller's lock (staging.ts `trusted`): a part
   * of another boot is cut back to its last fdatasync here. 404 when the upload is gone or no
   * longer this one (a creation by someone else meanwhile).
   */
  private async trusted(rec: UploadRecord, mode: SyncMode): Promise<{ rec: UploadRecord; size: number }> {
    const now = await this.staging.trusted(rec.id, mode);
    if (!now || now.rec.userId !== rec.userId || now.rec.target !== rec.target || now.rec.tag !== rec.tag) {
      throw new NotFoundError('no upload in progress for this path');
    }
    if (now.cut > 0) {
      this.deps().log.info(
        `upload ${rec.virtual}: the machine restarted since its last bytes; kept the ${now.size} synced before, ${now.cut} more are sent again`,
      );
    }
    return now;
  }

  private releaseRoom(id: string): void {
    this.flushes.forget(id);
    this.rooms.get(id)?.release();
    this.rooms.delete(id);
  }

  /**
   * Removes unfinished uploads with no write for `uploadExpiry` seconds, and leftovers of
   * interrupted creations. Returns how many uploads were removed.
   */
  async sweep(now = Date.now()): Promise<number> {
    const settings = await this.deps().repos.settings.get();
    this.lastSweep = now;
    const maxAge = settings.uploadExpiry * 1000;
    let removed = 0;
    for (const [id, e] of await this.staging.entries()) {
      if (this.locks.isHeld(id)) continue;
      const last = Math.max(e.part?.mtimeMs ?? 0, e.meta?.mtimeMs ?? 0, e.tmp?.mtimeMs ?? 0);
      const complete = Boolean(e.part && e.meta);
      if (now - last <= (complete ? maxAge : Math.min(maxAge, ORPHAN_GRACE_MS))) continue;
      const release = this.locks.tryAcquire(id);
      if (!release) continue;
      try {
        await this.staging.remove(id);
        await this.staging.removeTmp(id);
        this.releaseRoom(id);
        removed++;
      } finally {
        release();
      }
    }
    return removed;
  }

  private async sweepIfDue(settings: SharedSettings): Promise<void> {
    if (Date.now() - this.lastSweep < Math.min(SWEEP_EVERY_MS, settings.uploadExpiry * 1000)) return;
    await this.sweep().catch((err) => this.deps().log.warn(`upload sweep: ${(err as Error).message}`));
  }

  private expiresAt(lastWrite: number, settings: SharedSettings): Date {
    return new Date(lastWrite + settings.uploadExpiry * 1000);
  }

  private isExpired(rec: UploadRecord, st: Stats | undefined, settings: SharedSettings): boolean {
    const last = Math.max(rec.createdAt, st?.mtimeMs ?? 0);
    return Date.now() - last > settings.uploadExpiry * 1000;
  }

  /** The caller's unfinished upload for this target, or 404 (expired uploads are removed). */
  private async active(target: Target, ref?: UploadRef): Promise<{ rec: UploadRecord; st: Stats }> {
    const id = ref?.id ?? this.staging.idFor(target.abs);
    const rec = await this.staging.read(id);
    if (!rec || rec.userId !== target.access.user.id || rec.target !== target.abs || rec.tag !== ref?.tag) {
      throw new NotFoundError('no upload in progress for this path');
    }
    const st = await this.staging.stat(id);
    if (!st || (this.isExpired(rec, st, target.access.settings) && !this.locks.isHeld(id))) {
      const release = this.locks.tryAcquire(id);
      if (release) {
        try {
          await this.staging.remove(id);
          this.releaseRoom(id);
        } finally {
          release();
        }
      }
      throw new NotFoundError('no upload in progress for this path');
    }
    return { rec, st };
  }

  /**
   * Moves a complete upload into place through the `upload` hooks, then announces it: the same
   * placing function as PUT and POST (disk/place.ts), through a handle on the target's folder
   * opened after the before-hooks. Errors the client must act on (conflict, permission, a
   * failing before-hook) discard the upload; others (disk full, I/O) keep it, and the next HEAD
   * tries again.
   */
  private async finish(rec: UploadRecord, target: Target): Promise<void> {
    const { hooks, events, gate, quotas } = this.deps();
    const { access } = target;
    const part = this.staging.partPath(rec.id);
    let placed = target;
    try {
      const st = await this.staging.stat(rec.id);
      if (!st || st.size !== rec.length) throw new ConflictError('the upload is incomplete');
      const { fileMode, dirMode } = access.settings;
      const place = (t: Target) =>
        hooks.around({ event: 'upload', user: access.user, file: t.real, scope: access.rootReal }, () =>
          gate.withParent(t, { create: dirMode }, (dir, name) =>
            placeFile(dir, name, { kind: 'staged', path: part }, { override: rec.override, mode: fileMode, keepReplacedMode: true }),
          ),
        );
      if (!rec.freeName) {
        if (target.isDir) throw new ConflictError('a folder exists at that path');
        if (target.exists && !rec.override) throw new ConflictError('a file with that name exists');
        if (target.exists) gate.checkPermission(access, 'modify');
      }
      // Room reserved at creation; an upload created before a restart is checked now.
      const replacing = !rec.freeName && target.exists;
      if (!this.rooms.has(rec.id))
        await quotas.assertRoom(access.user, { bytes: rec.length - (replacing ? (target.stat?.size ?? 0) : 0), files: replacing ? 0 : 1 });
      if (rec.freeName) placed = (await placeUnderFreeName(gate, target, place)).target;
      else await place(target);
    } catch (err) {
      if (err instanceof FmError && (err.status < 500 || err.code === 'quota')) {
        await this.staging.remove(rec.id);
        this.releaseRoom(rec.id);
      }
      throw err;
    }
    await this.staging.forget(rec.id);
    await events.emit('written', { abs: placed.real, isDir: false, user: access.user });
    this.releaseRoom(rec.id);
  }
}
