/**
 * Raw downloads (GET /api/raw, and the public share download that behaves like it): one file
 * streamed with Range and conditional requests, or a folder / a `files` selection streamed as an
 * archive. User files are served under a sandboxing CSP so that an uploaded HTML or SVG file
 * cannot run script in fm's origin.
 */
import { Readable } from 'node:stream';
import type Koa from 'koa';
import mime from 'mime-types';
import rangeParser from 'range-parser';
import { ARCHIVE_FORMATS, type ArchiveAlgo } from '../../api/files.ts';
import { BadRequestError, RangeNotSatisfiableError } from '../../errors.ts';
import { checkArchiveAlgo } from './archive-format.ts';
import type { Access, Gate, Target } from './gate.ts';
import { openForRead } from './io.ts';
import { etagOf } from './operations.ts';
import { baseName, cleanPath, isWithin, joinVirtual, parentOf } from './paths.ts';
import { displayName, nameBytes } from './disk/names.ts';

/**
 * The CSP of every user file: `sandbox` gives the document an opaque origin with scripts off,
 * and nothing but inline styles, same-origin images and media may load. Chromium's PDF viewer
 * still renders under it (test/integration/raw-browser.test.ts checks both PDF and HTML).
 */
export const USER_FILE_CSP =
  "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self'; frame-ancestors 'self'";

export interface DownloadRequest {
  access: Access;
  /** Cleaned virtual path from the URL: a file, or the folder of an archive. */
  virtual: string;
  /** `?inline=true`: show in the browser rather than save. */
  inline: boolean;
  /** Raw `?files=` value (already query-decoded once): a comma list of paths under `virtual`. */
  files?: string;
  /** Raw `?algo=` value. */
  algo?: string;
  /** Name of the archive when the selection's common folder is the access root ("archive" by default). */
  rootName?: string;
}

/** Sets the headers every user-file response carries. */
function userFileHeaders(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', USER_FILE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'private');
}

/**
 * `attachment|inline; filename="<ASCII fallback>"; filename*=UTF-8''<RFC 5987>`. `filename*`
 * percent-encodes the name's exact bytes (names.ts): for a name that is not UTF-8 those bytes
 * are not UTF-8 either, so clients that take the bytes as they are (wget, scripts) save the
 * file under its real name, and strict ones reject `filename*` and use the ASCII fallback.
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_') || 'download';
  let encoded = '';
  for (const b of nameBytes(name)) {
    // What encodeURIComponent keeps, minus ' ( ) *, which RFC 5987 does not allow bare.
    const keep = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x21 || b === 0x7e;
    encoded += keep ? String.fromCharCode(b) : `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;
  }
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * Streams a resolved regular file inline with the user-file headers (previews answering with
 * the original image use this; /api/raw goes through `serveDownload`).
 */
export async function sendUserFileInline(ctx: Koa.Context, target: Target): Promise<void> {
  const fh = await openForRead(target);
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new BadRequestError('not a regular file');
  }
  const name = baseName(target.virtual);
  userFileHeaders(ctx);
  ctx.type = mime.contentType(name) || 'application/octet-stream';
  ctx.length = st.size;
  ctx.set('Content-Disposition', contentDisposition('inline', name));
  ctx.body = fh.createReadStream();
}

/** Serves a raw download: a file (Range, conditional requests) or an archive. */
export async function serveDownload(gate: Gate, ctx: Koa.Context, req: DownloadRequest): Promise<void> {
  const target = await gate.resolve(req.access, req.virtual, 'download');
  const files = req.files?.split(',').filter((s) => s !== '') ?? [];
  if (target.isDir || files.length > 0) {
    if (!target.isDir) throw new BadRequestError('files= needs a folder');
    await serveArchive(gate, ctx, req, target, files);
    return;
  }
  await serveFile(ctx, target, req.inline);
}

/** One regular file, with ETag/Last-Modified, 304, 412, Range/206/416 and If-Range. */
async function serveFile(ctx: Koa.Context, target: Target, inline: boolean): Promise<void> {
  if (!target.stat?.isFile()) throw new BadRequestError('not a regular file');
  const fh = await openForRead(target);
  let handedOver = false;
  try {
    const st = await fh.stat({ bigint: true });
    if (!st.isFile()) throw new BadRequestError('not a regular file');
    const size = Number(st.size);
    const etag = etagOf(st);
    const lastModified = new Date(Number(st.mtimeMs));
    const name = baseName(target.virtual);

    userFileHeaders(ctx);
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('ETag', etag);
    ctx.set('Last-Modified', lastModified.toUTCString());
    ctx.set('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', name));
    ctx.type = inline ? mime.contentType(name) || 'application/octet-stream' : 'application/octet-stream';

    if (preconditionFailed(ctx, etag, lastModified)) {
      ctx.status = 412;
      ctx.body = '412 Precondition Failed\n';
      return;
    }
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }

    let start = 0;
    let end = size - 1;
    const range = ctx.get('Range');
    if (range && rangeApplies(ctx.get('If-Range'), etag, lastModified)) {
      const parsed = rangeParser(size, range, { combine: true });
      if (parsed === -1) throw new RangeNotSatisfiableError('range not satisfiable', size);
      // Malformed ranges (-2), other units and several ranges get the whole file (200): a
      // multipart/byteranges answer is allowed to be skipped, and clients cope.
      if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1) {
        start = parsed[0].start;
        end = parsed[0].end;
        ctx.status = 206;
        ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
      }
    }
    if (size === 0) {
      ctx.body = '';
      return;
    }
    // Koa destroys the stream (closing the file) when the response ends or the client leaves.
    ctx.body = fh.createReadStream({ start, end, highWaterMark: 1 << 20 });
    handedOver = true;
    ctx.length = end - start + 1;
  } finally {
    if (!handedOver) await fh.close().catch(() => {});
  }
}

/** If-Match / If-Unmodified-Since (RFC 9110 §13.1.1, §13.1.4). */
function preconditionFailed(ctx: Koa.Context, etag: string, lastModified: Date): boolean {
  const ifMatch = ctx.get('If-Match');
  if (ifMatch) {
    if (ifMatch.trim() === '*') return false;
    return !ifMatch.split(',').some((t) => t.trim() === etag);
  }
  const since = Date.parse(ctx.get('If-Unmodified-Since'));
  return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) > Math.floor(since / 1000);
}

/** If-Range: an exact strong ETag or an HTTP date equal to Last-Modified; otherwise the full file. */
function rangeApplies(ifRange: string, etag: string, lastModified: Date): boolean {
  if (!ifRange) return true;
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return v === etag;
  const date = Date.parse(v);
  return !Number.isNaN(date) && Math.floor(date / 1000) === Math.floor(lastModified.getTime() / 1000);
}

/** An archive of the folder, or of the `files` selection under it. */
async function serveArchive(gate: Gate, ctx: Koa.Context, req: DownloadRequest, folder: Target, files: string[]): Promise<void> {
  const algo: ArchiveAlgo = checkArchiveAlgo(req.algo);
  const virtuals = files.length
    ? files.map((f) => {
        let decoded: string;
        try {
          decoded = decodeURIComponent(f);
        } catch {
          throw new BadRequestError('invalid percent-encoding in files');
        }
        return joinVirtual(folder.virtual, cleanPath(decoded).path);
      })
    : [folder.virtual];
  // Drop duplicates and items inside another selected item (they would be archived twice).
  const unique = [...new Set(virtuals)].sort();
  const selected = unique.filter((v) => !unique.some((o) => o !== v && isWithin(o, v)));
  const targets: Target[] = [];
  for (const v of selected) targets.push(await gate.resolve(req.access, v, 'download'));

  // Entries are named relative to `base`: the folder itself for one folder, else the common parent.
  const base = targets.length === 1 && targets[0].isDir ? targets[0].virtual : commonParent(targets.map((t) => t.virtual));
  let name = baseName(base) || req.rootName || 'archive';
  if (targets.length > 1) name = `_${name}`;
  userFileHeaders(ctx);
  ctx.set('Content-Disposition', contentDisposition('attachment', `${name}${ARCHIVE_FORMATS[algo].extension}`));
  ctx.type = ARCHIVE_FORMATS[algo].contentType;
  ctx.status = 200;
  if (ctx.method === 'HEAD') {
    ctx.body = Readable.from([]); // headers only: no archive is built
    return;
  }
  // The archivers load on the first archive, not at start-up.
  const { createArchiveStream } = await import('./archive.ts');
  const { log } = ctx.services;
  ctx.body = await createArchiveStream(
    gate,
    req.access,
    targets,
    base,
    algo,
    (err) => log.error(`archive of ${displayName(req.virtual)} cut short: ${err.message}`),
    (lines) => log.warn(`archive of ${displayName(req.virtual)}: ${lines.length} entries left out (listed in the archive): ${lines.slice(0, 5).join('; ')}`),
  );
}

/** The deepest folder containing every path (segment-wise). */
export function commonParent(virtuals: string[]): string {
  const split = virtuals.map((v) => parentOf(v).split('/').filter(Boolean));
  const first = split[0] ?? [];
  let n = first.length;
  for (const segs of split) {
    let i = 0;
    while (i < n && i < segs.length && segs[i] === first[i]) i++;
    n = i;
  }
  return `/${first.slice(0, n).join('/')}`;
}
