/**
 * The staging folder: where unfinished uploads live until their last byte arrives. Each upload
 * is two files, `<id>.part` (the bytes received) and `<id>.json` (who, where, how long, and the
 * offset of the part's last fdatasync with the boot it happened in: durability.ts), so offsets
 * survive a crash: the offset is the size of the part file, cut back to the synced offset after
 * a reboot. The folder is on the root's file system, so finishing is a rename.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LOCAL_FS } from '../files/disk/folder-watch.ts';
import { isWithin } from '../files/paths.ts';
import { SYNC_EVERY, type SyncMode, type SyncedOffset, trustedOffset } from './durability.ts';

/** Staging folder name inside the data folder (beside the database). */
export const STAGING_IN_DATA = 'uploads';
/** Staging folder name inside the root, when the data folder is on another file system. */
export const STAGING_IN_ROOT = '.fm-uploads';

/** What is known about an unfinished upload, besides its bytes. */
export interface UploadRecord {
  v: 1;
  id: string;
  /** Absolute path of the file being uploaded (the gate's `abs`). */
  target: string;
  /** Virtual path as the user named it at creation (for logs). */
  virtual: string;
  userId: number;
  /** Declared Upload-Length in bytes. */
  length: number;
  /** Replace an existing file when finishing. */
  override: boolean;
  /** Raw Upload-Metadata header, kept for clients that read it back. */
  metadata: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Set for uploads addressed by id (drop links): requests must carry the same tag. */
  tag?: string;
  /** Finish under a free name when the target's is taken. */
  freeName?: boolean;
  /** The part's last fdatasync (absent: every acknowledged byte was fsynced; durability.ts). */
  synced?: SyncedOffset;
}

/** How uploads are made durable; tests give another boot id to simulate a reboot. */
export interface UploadSyncOptions {
  /** The kernel's boot id (default: read from /proc; null: none, as on systems without it). */
  bootId?: string | null;
  /** Bytes between fdatasyncs of a part (default SYNC_EVERY). */
  every?: number;
  /** Whether the staging folder counts as local (default: its statfs type), so tests do not depend on the machine's. */
  local?: boolean;
}

/** Only this kernel writes it: the folder watch's local file systems, and overlayfs (containers), whose upper layer is one of them. */
function isLocalFs(type: number): boolean {
  return LOCAL_FS.has(type) || type === 0x794c7630;
}

/** This kernel's boot id, or undefined where /proc does not give one. */
function readBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Chooses the staging folder: `<dataDir>/uploads` when the data folder is outside the root and
 * on the same file system (fm's files stay out of the user's tree), else `<root>/.fm-uploads`.
 * Both give rename(2) within one file system; the gate protects either.
 */
export function chooseStagingDir(root: string, dataDir: string, devOf: (p: string) => number = (p) => fs.statSync(p).dev): string {
  let sameDevice = false;
  try {
    sameDevice = devOf(dataDir) === devOf(root);
  } catch {
    sameDevice = false;
  }
  const dataInsideRoot = isWithin(path.resolve(root), path.resolve(dataDir));
  return sameDevice && !dataInsideRoot ? path.join(dataDir, STAGING_IN_DATA) : path.join(root, STAGING_IN_ROOT);
}

const ID_RE = /^[0-9a-f]{40}$/;

/** A fresh random upload id (the same shape as `idFor`'s, so the sweeper knows it). */
export function randomUploadId(): string {
  return crypto.randomBytes(20).toString('hex');
}

export class Staging {
  private ready?: Promise<void>;

  constructor(readonly dir: string) {}

  /** The upload id of a target: stable across restarts, one upload per target file. */
  idFor(targetAbs: string): string {
    return crypto.createHash('sha256').update(targetAbs).digest('hex').slice(0, 40);
  }

  partPath(id: string): string {
    return path.join(this.dir, `${id}.part`);
  }

  private metaPath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Creates the folder (private to fm) on first use. */
  ensure(): Promise<void> {
    this.ready ??= fsp.mkdir(this.dir, { recursive: true, mode: 0o700 }).then(
      () => undefined,
      (err) => {
        this.ready = undefined;
        throw err;
      },
    );
    return this.ready;
  }

  /**
   * The upload's record, read synchronously like its part's size (`stat`): a few hundred bytes
   * in fm's own folder, read twice by every PATCH (before and under the lock). Through the
   * thread pool each read was four round trips (open, fstat, read, close) and the stat one more:
   * ten of a PATCH's ~13, ~0.65 ms of a 4 KiB PATCH's 3.1 ms on 2 cores (docs/decisions.md,
   * "Performance: tus uploads, the turnaround of a chunk").
   */
  async read(id: string): Promise<UploadRecord | undefined> {
    let raw: string;
    try {
      raw = fs.readFileSync(this.metaPath(id), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const rec = JSON.parse(raw) as UploadRecord;
      return rec.v === 1 && rec.id === id ? rec : undefined;
    } catch {
      return undefined; // A torn record (crash mid-write cannot happen: it is renamed into place).
    }
  }

  /**
   * How parts in this folder are made durable: an fdatasync every `every` bytes when the kernel
   * has a boot id and the folder is on a local file system, else before every acknowledgement
   * (another machine writing the same folder over the network has a page cache of its own).
   */
  async syncMode(opts: UploadSyncOptions = {}): Promise<SyncMode> {
    const boot = opts.bootId === undefined ? readBootId() : (opts.bootId ?? undefined);
    await this.ensure();
    const local = opts.local ?? isLocalFs((await fsp.statfs(this.dir)).type);
    return { boot, host: os.hostname(), every: boot !== undefined && local ? (opts.every ?? SYNC_EVERY) : 0 };
  }

  /** The part file's stat (its size is the offset), undefined when it is gone; synchronous, as `read` says. */
  async stat(id: string): Promise<fs.Stats | undefined> {
    return fs.statSync(this.partPath(id), { throwIfNoEntry: false });
  }

  /** Creates an empty part file and its record, both durable before this returns. */
  async create(rec: UploadRecord): Promise<void> {
    await this.ensure();
    const part = await fsp.open(this.partPath(rec.id), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o600);
    try {
      await part.sync();
    } finally {
      await part.close();
    }
    await this.save(rec);
    await syncDir(this.dir);
  }

  /**
   * Replaces an upload's record in one rename of a synced temporary file, so a crash leaves the
   * old record or the new one, never a torn one. The folder is not fsynced: a rename lost to a
   * power cut brings back the previous record, whose synced offset is smaller (never larger).
   */
  async save(rec: UploadRecord): Promise<void> {
    const tmp = `${this.metaPath(rec.id)}.tmp`;
    const fh = await fsp.open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(JSON.stringify(rec));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, this.metaPath(rec.id));
  }

  /** fdatasyncs an upload's part file (a background sync of flushes.ts, or before finishing). */
  async syncPart(id: string): Promise<void> {
    const fh = await fsp.open(this.partPath(id), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      await fh.datasync();
    } finally {
      await fh.close();
    }
  }

  /**
   * An upload's record and the bytes of its part that can be trusted under `mode`
   * (durability.ts): a part last written under another boot is cut back to its last fdatasync,
   * and the record then names this boot, before anything reports or appends to it. The caller
   * holds the upload's lock. Undefined when the upload is gone.
   */
  async trusted(id: string, mode: SyncMode): Promise<{ rec: UploadRecord; size: number; cut: number } | undefined> {
    const rec = await this.read(id);
    const st = rec && (await this.stat(id));
    if (!rec || !st) return undefined;
    const { keep, record } = trustedOffset(rec.synced, st.size, mode);
    if (record === undefined) return { rec, size: st.size, cut: 0 };
    const fh = await fsp.open(this.partPath(id), fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
    try {
      if (keep < st.size) await fh.truncate(keep);
      // Without a synced offset in the record, every byte of the part must be on disk.
      if (record === null) await fh.datasync();
    } finally {
      await fh.close();
    }
    const { synced: _, ...rest } = rec;
    const next: UploadRecord = record === null ? rest : { ...rest, synced: record };
    await this.save(next);
    return { rec: next, size: keep, cut: st.size - keep };
  }

  /** Removes an upload's files (record first, so a crash leaves at most an orphan part). */
  async remove(id: string): Promise<void> {
    await fsp.rm(this.metaPath(id), { force: true });
    await fsp.rm(this.partPath(id), { force: true });
  }

  /** Forgets the record of an upload whose part file has been moved into place. */
  async forget(id: string): Promise<void> {
    await fsp.rm(this.metaPath(id), { force: true });
  }

  /** The ids in the folder, with the files each has (for the sweeper). */
  async entries(): Promise<Map<string, { part?: fs.Stats; meta?: fs.Stats; tmp?: fs.Stats }>> {
    const out = new Map<string, { part?: fs.Stats; meta?: fs.Stats; tmp?: fs.Stats }>();
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw err;
    }
    for (const name of names) {
      const m = /^([0-9a-f]+)\.(part|json|json\.tmp)$/.exec(name);
      if (!m || !ID_RE.test(m[1])) continue;
      const st = await fsp.lstat(path.join(this.dir, name)).catch(() => undefined);
      if (!st?.isFile()) continue;
      const entry = out.get(m[1]) ?? {};
      if (m[2] === 'part') entry.part = st;
      else if (m[2] === 'json') entry.meta = st;
      else entry.tmp = st;
      out.set(m[1], entry);
    }
    return out;
  }

  /** Removes a leftover `<id>.json.tmp` (a crash during creation). */
  async removeTmp(id: string): Promise<void> {
    await fsp.rm(`${this.metaPath(id)}.tmp`, { force: true });
  }
}

/** fsyncs a folder so a rename or creation in it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fsp.open(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
