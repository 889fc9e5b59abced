/**
 * Temporary files and folders of writes in progress (`.fm-partial-<run>-<random>`, beside
 * their target). A killed server leaves them behind, and nothing in a user's tree would ever
 * remove them; walking a whole root at every start to find them would be too slow. So each
 * server run keeps a small journal in fm's data folder, `<pid>-<run>.log`: one JSON line per
 * folder it may have a temporary entry in, written before the first one is created.
 *
 * A sweep (at start-up, then periodically) reads the journals of runs that are over, removes
 * their temporary entries from the folders listed and deletes those journals. In this run it
 * removes the temporaries whose cleanup failed, and shortens its own journal to the folders
 * that still hold one, so the journal stays as small as the writes in flight.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DirHandle, type Scope } from './handle.ts';
import { removeEntry } from './tree.ts';

/** Prefix of every temporary entry; listings, search, archives and copies leave these out. */
export const PARTIAL_PREFIX = '.fm-partial-';

export const isPartialName = (name: string): boolean => name.startsWith(PARTIAL_PREFIX);

const LOG_RE = /^(\d+)-([0-9a-f]{8})\.log$/;
/** Runs started by this process (several services in one process: tests, the CLI). */
const runsHere = new Set<string>();

/** A temporary name handed to a write; `release` once the entry was renamed away or removed. */
export interface TempName {
  name: string;
  /** `failed`: the entry could not be removed (the next sweep retries). */
  release(failed?: boolean): void;
}

/** A random temporary name without a journal (the CLI, unit tests). */
export function anonymousTemp(): TempName {
  return { name: `${PARTIAL_PREFIX}${crypto.randomBytes(8).toString('hex')}`, release: () => {} };
}

/** A temporary name in `dir`, journaled when the scope has a journal. */
export function tempIn(dir: DirHandle): Promise<TempName> | TempName {
  return dir.scope.partials ? dir.scope.partials.acquire(dir.real) : anonymousTemp();
}

export class PartialJournal {
  /** This run's id, part of every temporary name it makes. */
  readonly run = crypto.randomBytes(4).toString('hex');
  private readonly file: string;
  /** Folders listed in this run's journal. */
  private noted = new Set<string>();
  /** Temporary entries (real paths) that a write holds now, by folder. */
  private readonly held = new Map<string, Set<string>>();
  /** Folders where removing a temporary entry failed. */
  private readonly suspects = new Set<string>();
  /** Journal writes, one at a time (an append must not land in a file being replaced). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    /** fm's folder for journals (inside the data folder). */
    readonly dir: string,
    /** The whole served root: where sweeps may remove entries. */
    private readonly rootScope: Scope,
  ) {
    this.file = path.join(dir, `${process.pid}-${this.run}.log`);
    runsHere.add(this.run);
  }

  /** A new temporary name in the folder `dirReal`, journaled before the caller creates it. */
  async acquire(dirReal: string): Promise<TempName> {
    if (!this.noted.has(dirReal)) {
      await this.serially(async () => {
        if (this.noted.has(dirReal)) return;
        await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
        await fsp.appendFile(this.file, `${JSON.stringify(dirReal)}\n`, { mode: 0o600 });
        this.noted.add(dirReal);
      });
    }
    const name = `${PARTIAL_PREFIX}${this.run}-${crypto.randomBytes(8).toString('hex')}`;
    let names = this.held.get(dirReal);
    if (!names) {
      names = new Set();
      this.held.set(dirReal, names);
    }
    names.add(name);
    return {
      name,
      release: (failed = false) => {
        names.delete(name);
        if (names.size === 0 && this.held.get(dirReal) === names) this.held.delete(dirReal);
        if (failed) this.suspects.add(dirReal);
      },
    };
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => {});
    return next;
  }

  /** Removes temporary entries nobody will finish; returns how many. */
  async sweep(): Promise<number> {
    let removed = 0;
    let names: string[];
    try {
      names = await fsp.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    for (const name of names) {
      const m = LOG_RE.exec(name);
      if (!m || m[2] === this.run) continue;
      const log = path.join(this.dir, name);
      if (await runIsLive(Number(m[1]), m[2], log)) continue;
      const folders = parseJournal(await fsp.readFile(log, 'utf8').catch(() => ''));
      for (const folder of folders) removed += await this.removeTemps(folder, m[2]);
      await fsp.rm(log, { force: true });
    }
    for (const folder of [...this.suspects]) {
      this.suspects.delete(folder);
      removed += await this.removeTemps(folder, this.run);
    }
    await this.compact();
    return removed;
  }

  /** Rewrites this run's journal with only the folders that hold a temporary entry now. */
  private compact(): Promise<void> {
    return this.serially(async () => {
      const keep = new Set([...this.held.keys(), ...this.suspects]);
      if (keep.size === this.noted.size) return;
      if (keep.size === 0) {
        await fsp.rm(this.file, { force: true });
      } else {
        const tmp = `${this.file}.tmp`;
        await fsp.writeFile(tmp, [...keep].map((f) => `${JSON.stringify(f)}\n`).join(''), { mode: 0o600 });
        await fsp.rename(tmp, this.file);
      }
      this.noted = keep;
    });
  }

  /** Removes the temporary entries of `run` from a folder, except those a write holds. */
  private async removeTemps(folder: string, run: string): Promise<number> {
    const prefix = `${PARTIAL_PREFIX}${run}-`;
    const held = this.held.get(folder);
    let dir: DirHandle;
    try {
      dir = await DirHandle.open(folder, this.rootScope);
    } catch {
      return 0; // gone, moved, or no longer inside the root
    }
    let removed = 0;
    try {
      for (const e of await dir.entries()) {
        if (!e.name.startsWith(prefix) || held?.has(e.name)) continue;
        await removeEntry(dir, e.name).then(
          () => removed++,
          () => this.suspects.add(folder),
        );
      }
    } finally {
      await dir.close();
    }
    return removed;
  }

  /** Removes this run's journal when nothing is left in flight (a clean shutdown). */
  async close(): Promise<void> {
    await this.serially(async () => {
      if (this.held.size === 0 && this.suspects.size === 0) await fsp.rm(this.file, { force: true });
    });
  }
}

function parseJournal(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'string' && path.isAbsolute(v)) out.add(v);
    } catch {
      // a torn last line (the process died while appending): that folder has no entry yet
    }
  }
  return [...out];
}

/**
 * Whether the run that wrote `log` may still be writing: its process exists and the journal
 * is newer than the last boot (a pid reused after a reboot is not that run). A log with this
 * process's pid but a run it did not start is from an earlier process (a container restart
 * reuses pids).
 */
async function runIsLive(pid: number, run: string, log: string): Promise<boolean> {
  if (pid === process.pid) return runsHere.has(run);
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const st = await fsp.stat(log).catch(() => undefined);
  if (!st) return false;
  return st.mtimeMs >= Date.now() - os.uptime() * 1000;
}
