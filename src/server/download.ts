/**
 * The HTTP side of raw downloads (GET /api/raw, the public share download, previews that answer
 * with the original): user-file headers, Content-Disposition, ETag and Last-Modified, 304, 412,
 * Range/206/416 and If-Range. What is downloaded is decided by services/files/download.ts.
 * User files are served under a sandboxing CSP so that an uploaded HTML or SVG file cannot run
 * script in fm's origin.
 */
import { Readable } from 'node:stream';
import mime from 'mime-types';
import rangeParser from 'range-parser';
import { BadRequestError, RangeNotSatisfiableError } from '../errors.ts';
import { archiveStream, openDownloadFile, planDownload, type DownloadRequest } from '../services/files/download.ts';
import type { Target } from '../services/files/gate.ts';
import { openForRead } from '../services/files/io.ts';
import { etagOf } from '../services/files/operations.ts';
import { baseName } from '../services/files/paths.ts';
import { nameBytes } from '../services/files/disk/names.ts';
import { FileBody } from './file-body.ts';
import type { FmContext } from './types.ts';

/**
 * The CSP of every user file: `sandbox` gives the document an opaque origin with scripts off,
 * and nothing but inline styles, same-origin images and media may load. Chromium's PDF viewer
 * still renders under it (test/integration/raw-browser.test.ts checks both PDF and HTML).
 */
export const USER_FILE_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self'; frame-ancestors 'self'";

/** Sets the headers every user-file response carries. */
function userFileHeaders(ctx: FmContext): void {
  ctx.set('Content-Security-Policy', USER_FILE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'private');
}

/**
 * `attachment|inline; filename="<ASCII fallback>"; filename*=UTF-8''<RFC 5987>`. `filename*`
 * percent-encodes the name's exact bytes (names.ts): for a name that is not UTF-8 those bytes
 * are not UTF-8 either, so clients that take the bytes as they are (wget, scripts) save the
 * file under its real name, and strict ones reject `filename*` and use the ASCII fallback.
 * (Koa's ctx.attachment encodes the JavaScript string as UTF-8, which loses those bytes.)
 */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_') || 'download';
  let encoded = '';
  for (const b of nameBytes(name)) {
    // What encodeURIComponent keeps, minus ' ( ) *, which RFC 5987 does not allow bare.
    const keep =
      (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x21 || b === 0x7e;
    encoded += keep ? String.fromCharCode(b) : `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;
  }
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * Streams a resolved regular file inline with the user-file headers (previews answering with
 * the original image use this; /api/raw goes through `serveDownload`).
 */
export async function sendUserFileInline(ctx: FmContext, target: Target): Promise<void> {
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
  ctx.body = new FileBody(fh, 0, st.size - 1);
}

/** Serves a raw download: a file (Range, conditional requests) or an archive. */
export async function serveDownload(ctx: FmContext, req: DownloadRequest): Promise<void> {
  const { gate, log } = ctx.services;
  const plan = await planDownload(gate, req);
  if (plan.kind === 'file') return serveFile(ctx, plan.target, plan.name, req.inline);
  // The audit log names what an archive holds: its entries' root paths.
  if (ctx.state.audit) ctx.state.audit.entries = plan.targets.map((t) => t.virtual);
  userFileHeaders(ctx);
  ctx.set('Content-Disposition', contentDisposition('attachment', plan.name));
  ctx.type = plan.contentType;
  ctx.status = 200;
  if (ctx.method === 'HEAD') {
    ctx.body = Readable.from([]); // headers only: no archive is built
    return;
  }
  ctx.body = await archiveStream(gate, req, plan, log);
}

/** One regular file, with ETag/Last-Modified, 304, 412, Range/206/416 and If-Range. */
async function serveFile(ctx: FmContext, target: Target, name: string, inline: boolean): Promise<void> {
  const { fh, st } = await openDownloadFile(target);
  let handedOver = false;
  try {
    const size = Number(st.size);
    const etag = etagOf(st);
    const lastModified = new Date(Number(st.mtimeMs));

    userFileHeaders(ctx);
    ctx.set('Accept-Ranges', 'bytes');
    ctx.etag = etag;
    ctx.lastModified = lastModified;
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
    // Koa destroys the body (closing the file) when the response ends or the client leaves.
    ctx.body = new FileBody(fh, start, end);
    handedOver = true;
    ctx.length = end - start + 1;
  } finally {
    if (!handedOver) await fh.close().catch(() => {});
  }
}

/** If-Match / If-Unmodified-Since (RFC 9110 §13.1.1, §13.1.4). */
function preconditionFailed(ctx: FmContext, etag: string, lastModified: Date): boolean {
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
