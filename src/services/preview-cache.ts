/**
 * The preview cache on disk: fm's own folder, laid out as a mirror of the served tree (see
 * previews.ts). Mirrored paths are in fm's string form (files/disk/names.ts), so every call
 * hands node:fs the exact bytes: a mirrored name that is not UTF-8 stays the same length and
 * maps to one folder. This module only touches fm's own files, so it uses node:fs directly.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { osPath } from './files/disk/names.ts';

/** What the cache holds for one variant: the preview file, a remembered failure, or nothing. */
export type CacheHit = { file: string; size: number } | 'failed' | undefined;

/** The cached preview `<stem>.webp` in `dir`, or `failed` when `<stem>.failed` says an earlier conversion failed. */
export async function cachedPreview(dir: string, stem: string): Promise<CacheHit> {
  const file = path.join(dir, `${stem}.webp`);
  try {
    const st = await fsp.stat(osPath(file));
    if (st.isFile()) return { file, size: st.size };
  } catch {
    // not cached yet
  }
  try {
    await fsp.access(osPath(path.join(dir, `${stem}.failed`)));
    return 'failed';
  } catch {
    return undefined;
  }
}

/** Writes `<stem>.webp` atomically and drops older versions of the same size. */
export async function storePreview(dir: string, stem: string, data: Buffer): Promise<void> {
  const tmp = path.join(dir, `.fm-tmp-${crypto.randomBytes(6).toString('hex')}`);
  try {
    await fsp.mkdir(osPath(dir), { recursive: true });
    await fsp.writeFile(osPath(tmp), data, { flag: 'wx' });
    await fsp.rename(osPath(tmp), osPath(path.join(dir, `${stem}.webp`)));
    await dropOlder(dir, stem);
  } catch (err) {
    await fsp.rm(osPath(tmp), { force: true }).catch(() => {});
    throw err;
  }
}

/** Remembers that this version of a file cannot be converted. Failures only cost the cache. */
export async function markFailed(dir: string, stem: string): Promise<void> {
  await fsp
    .mkdir(osPath(dir), { recursive: true })
    .then(() => fsp.writeFile(osPath(path.join(dir, `${stem}.failed`)), ''))
    .then(() => dropOlder(dir, stem))
    .catch(() => {});
}

/** Removes a mirror folder (the previews of a file, or of everything under a folder). */
export async function removeMirror(mirror: string): Promise<void> {
  await fsp.rm(osPath(mirror), { recursive: true, force: true });
}

/** Opens a cached preview for streaming. */
export function openCachedPreview(file: string): Promise<fsp.FileHandle> {
  return fsp.open(osPath(file));
}

/** Older previews of the same size (earlier versions of the file) are garbage now. */
async function dropOlder(dir: string, stem: string): Promise<void> {
  const prefix = stem.slice(0, stem.indexOf('-') + 1);
  // Preview file names are ASCII; only the folder's path may need bytes.
  const names = await fsp.readdir(osPath(dir), { encoding: 'utf8' }).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => n.startsWith(prefix) && !n.startsWith(`${stem}.`)).map((n) => fsp.rm(osPath(path.join(dir, n)), { force: true }).catch(() => {})),
  );
}
