/** A small tmpfs for tests that need a real full disk (mounting needs root). */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Tmpfs {
  dir: string;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (e.g. `4m`) on `dir`, creating the folder. Throws when not allowed. */
export function mountTmpfs(dir: string, size: string): Tmpfs {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'ignore' });
  return {
    dir,
    unmount: () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }),
  };
}

/** Writes a file into `dir` until the file system is full; returns its path. */
export function fillUp(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) {
      try {
        fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        break;
      }
    }
    // The last partial block: fill it byte by byte until nothing fits.
    for (;;) {
      try {
        if (fs.writeSync(fd, chunk, 0, 1) === 0) break;
      } catch {
        break;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
