/**
 * Free disk space, behind one small interface so tests can simulate a full disk.
 * `FM_TEST_FREE_BYTES` (tests only, documented in docs/uploads.md) replaces the real figure.
 */
import { freeBytes } from '../files/disk/lookup.ts';

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use on the file system holding `dir`. */
  freeBytes(dir: string): Promise<number>;
}

/** The real figure, from statfs(2). */
export const statfsDiskSpace: DiskSpace = {
  freeBytes,
};

/** The disk space source for this process: statfs, unless the test-only override is set. */
export function diskSpaceFromEnv(env: NodeJS.ProcessEnv = process.env): DiskSpace {
  const raw = env.FM_TEST_FREE_BYTES;
  if (raw === undefined || !/^\d+$/.test(raw)) return statfsDiskSpace;
  const fixed = Number(raw);
  return { freeBytes: async () => fixed };
}
