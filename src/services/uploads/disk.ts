/** Free disk space, behind one small interface so that tests can give a full disk of their own. */
import { freeBytes } from '../files/disk/lookup.ts';

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use on the file system holding `dir`. */
  freeBytes(dir: string): Promise<number>;
}

/** The real figure, from statfs(2). */
export const statfsDiskSpace: DiskSpace = {
  freeBytes,
};
