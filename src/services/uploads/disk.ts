/** Free disk space, behind one small interface so that tests can give a full disk of their own. */
import path from 'node:path';
import { freeBytes, stat } from '../files/disk/lookup.ts';

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use on the file system holding `dir`. */
  freeBytes(dir: string): Promise<number>;
}

/** The real figure, from statfs(2). */
export const statfsDiskSpace: DiskSpace = {
  freeBytes,
};

/** Free bytes for a new upload: the smaller of the staging and the target file systems. */
export async function freeBytesFor(disk: DiskSpace, stagingDir: string, targetAbs: string): Promise<number> {
  const stagingFree = await disk.freeBytes(stagingDir);
  let dir = path.dirname(targetAbs);
  for (;;) {
    const st = await stat(dir).catch(() => undefined);
    if (st) {
      const stagingDev = (await stat(stagingDir)).dev;
      return st.dev === stagingDev ? stagingFree : Math.min(stagingFree, await disk.freeBytes(dir));
    }
    const up = path.dirname(dir);
    if (up === dir) return stagingFree;
    dir = up;
  }
}
