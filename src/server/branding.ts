/**
 * The branding folder (settings.branding.files; filebrowser serves it at /static/*, reference §10): a logo (img/logo.svg or
 * img/logo.png) and custom.css, served at /static/ in place of the bundle's. Only these names,
 * only regular files of at most BRANDING_MAX_BYTES whose real path lies inside the folder's real
 * path: a link that leads out of the folder is refused, so the setting cannot serve /etc/passwd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isWithin } from '../services/files/paths.ts';

export const BRANDING_MAX_BYTES = 1024 * 1024;

/** The files a branding folder may provide, by their path under /static/, and the type each is served as. */
export const BRANDING_FILES = {
  'custom.css': 'text/css; charset=utf-8',
  'img/logo.svg': 'image/svg+xml',
  'img/logo.png': 'image/png',
} as const;
export type BrandingName = keyof typeof BRANDING_FILES;

/** The logos in the order they are looked for: SVG first, as filebrowser's img/logo.svg. */
export const BRANDING_LOGOS: BrandingName[] = ['img/logo.svg', 'img/logo.png'];

export const isBrandingName = (rel: string): rel is BrandingName => Object.hasOwn(BRANDING_FILES, rel);

/** A branding file found: its real path; or why a file present there is not served. */
type Located = { real: string; size: number } | { refused: string };

export type BrandingFile = { body: Buffer; type: string } | { refused: string };

/** Where a branding file really is; undefined when there is none (or no folder is set). */
async function locate(folder: string, name: BrandingName): Promise<Located | undefined> {
  if (!folder) return undefined;
  let dir: string;
  let real: string;
  try {
    dir = await fs.promises.realpath(path.resolve(folder));
    real = await fs.promises.realpath(path.join(dir, name));
  } catch {
    return undefined;
  }
  if (real === dir || !isWithin(dir, real)) return { refused: `${name} leads out of the branding folder` };
  const st = await fs.promises.stat(real).catch(() => undefined);
  if (!st) return undefined;
  if (!st.isFile()) return { refused: `${name} is not a regular file` };
  if (st.size > BRANDING_MAX_BYTES) return { refused: `${name} is larger than ${BRANDING_MAX_BYTES} bytes` };
  return { real, size: st.size };
}

/** Whether the folder provides this file in a form it would be served (for the page's links). */
export async function hasBrandingFile(folder: string, name: BrandingName): Promise<boolean> {
  const found = await locate(folder, name);
  return Boolean(found && 'real' in found);
}

/** The file's bytes and type; undefined when absent, `refused` (with the reason) when present but not served. */
export async function readBrandingFile(folder: string, name: BrandingName): Promise<BrandingFile | undefined> {
  const found = await locate(folder, name);
  if (!found || 'refused' in found) return found;
  // O_NOFOLLOW: a link swapped in after locate() is not opened; O_NONBLOCK: nor does a FIFO hang us.
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(found.real, flags);
  } catch {
    return { refused: `${name} could not be opened` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > BRANDING_MAX_BYTES) return { refused: `${name} changed while it was read` };
    // One byte more than the size tells a file that grew since the stat.
    const buf = Buffer.alloc(st.size + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > st.size) return { refused: `${name} changed while it was read` };
    return { body: buf.subarray(0, bytesRead), type: BRANDING_FILES[name] };
  } finally {
    await fh.close();
  }
}
