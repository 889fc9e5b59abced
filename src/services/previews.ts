/**
 * Image previews: thumbnails (256×256, cover) and large previews (fit in 1080×1080) made with
 * sharp, HEIC/HEIF through heic-decode. EXIF orientation is applied. Images over a pixel limit
 * are refused from their header alone (413), before any pixel is decoded. Results are WebP
 * files cached on disk under a mirror of the served tree, named after the source's inode,
 * mtime and size, so a changed file never gets a stale preview; file events drop the old ones.
 * At most `concurrency` conversions run at once; the rest queue (and leave the queue when every
 * client waiting for them has gone).
 */
import os from 'node:os';
import path from 'node:path';
import type { Sharp } from 'sharp';
import { ConflictError, PayloadTooLargeError } from '../errors.ts';
import type { Logger } from './context.ts';
import type { FileEvents } from './events.ts';
import type { Target } from './files/gate.ts';
import { openForRead } from './files/io.ts';
import { displayName, hasEscapes } from './files/disk/names.ts';
import type { FileHandle } from './files/disk/types.ts';
import { cachedPreview, markFailed, removeMirror, storePreview } from './preview-cache.ts';
import { typeFromName } from './files/types.ts';
import { HeicDecoder, HeicTooLargeError } from './heic.ts';
import { Limiter } from './limiter.ts';

export const PREVIEW_SIZES = ['thumb', 'big'] as const;
export type PreviewSize = (typeof PREVIEW_SIZES)[number];

/** How an image is turned into a preview. */
export type PreviewPlan = 'sharp' | 'heic' | 'raw';

/** What to answer: the original file, or a preview (a cached file, or bytes when caching failed). */
export type PreviewOutcome = { kind: 'raw' } | { kind: 'file'; file: string; size: number; type: string } | { kind: 'buffer'; data: Buffer; type: string };

export interface PreviewOptions {
  /** Absolute real path of the served root; the cache mirrors paths relative to it. */
  root: string;
  /** Where previews are cached (fm's own folder, kept out of reach by the gate). */
  cacheDir: string;
  /** Conversions at once (default: the number of cores). */
  concurrency?: number;
  /** Shares a limiter with other work (default: a limiter of `concurrency` slots). */
  limiter?: Limiter;
  /** Largest accepted image, in pixels (default 100 megapixels). */
  maxPixels?: number;
  /** Largest HEIC/HEIF file decoded (it is read whole into memory; default 64 MiB). */
  maxHeicBytes?: number;
  log: Logger;
}

const SHARP_EXTENSIONS = new Set(['.jpg', '.jpeg', '.jpe', '.jfif', '.png', '.webp', '.tif', '.tiff', '.avif']);
const HEIF_EXTENSIONS = new Set(['.heic', '.heif', '.hif']);
/** Thumbnails are always exactly 256×256 (small images are enlarged); big previews never enlarge. */
const SIZES: Record<PreviewSize, { width: number; height: number; fit: 'cover' | 'inside'; enlarge: boolean; quality: number }> = {
  thumb: { width: 256, height: 256, fit: 'cover', enlarge: true, quality: 75 },
  big: { width: 1080, height: 1080, fit: 'inside', enlarge: false, quality: 82 },
};
/** Bump when the output changes, so older cached previews are not reused. */
export const PREVIEW_FORMAT_VERSION = 1;
const OUTPUT_TYPE = 'image/webp';

/**
 * How a file is previewed, from its name: `undefined` when it is not an image (501), 'raw' for
 * images served as they are (GIF keeps its animation; SVG is never rasterised; BMP, ICO and
 * camera RAW formats are beyond sharp), otherwise the decoder to use.
 */
export function previewPlan(name: string): PreviewPlan | undefined {
  if (typeFromName(name) !== 'image') return undefined;
  const ext = path.extname(name).toLowerCase();
  if (SHARP_EXTENSIONS.has(ext)) return 'sharp';
  if (HEIF_EXTENSIONS.has(ext)) return 'heic';
  return 'raw';
}

interface Job {
  promise: Promise<PreviewOutcome>;
  controller: AbortController;
  waiters: number;
}

export class PreviewService {
  readonly cacheDir: string;
  readonly maxPixels: number;
  private readonly root: string;
  private readonly limiter: Limiter;
  private readonly heic: HeicDecoder;
  private readonly maxHeicBytes: number;
  private readonly jobs = new Map<string, Job>();
  private readonly log: Logger;

  constructor(opts: PreviewOptions) {
    this.root = opts.root;
    this.cacheDir = opts.cacheDir;
    this.maxPixels = opts.maxPixels ?? 100_000_000;
    this.maxHeicBytes = opts.maxHeicBytes ?? 64 * 1024 * 1024;
    const concurrency = opts.concurrency ?? Math.max(1, os.availableParallelism());
    this.limiter = opts.limiter ?? new Limiter(concurrency);
    this.heic = new HeicDecoder({ maxWorkers: concurrency });
    this.log = opts.log;
  }

  /** Drops cached previews when files change (the cache keys already ignore stale entries). */
  listen(events: FileEvents): void {
    events.on('written', (e) => (e.isDir ? undefined : this.forget(e.abs)));
    events.on('removed', (e) => this.forget(e.abs));
    events.on('moved', (e) => this.forget(e.fromAbs));
  }

  /**
   * A preview of a resolved image file. Throws 413 for images over the pixel limit; answers
   * `raw` when the image cannot be converted (the browser gets the original).
   */
  async preview(target: Target, size: PreviewSize, signal?: AbortSignal): Promise<PreviewOutcome> {
    const plan = previewPlan(target.virtual);
    if (plan === undefined || plan === 'raw') return { kind: 'raw' };
    const dir = this.mirrorOf(target.real);
    const stem = variantStem(size, target);
    if (dir) {
      const hit = await cachedPreview(dir, stem);
      if (hit === 'failed') return { kind: 'raw' };
      if (hit) return { kind: 'file', file: hit.file, size: hit.size, type: OUTPUT_TYPE };
    }
    const key = dir ? path.join(dir, stem) : `${target.real}\0${stem}`;
    let job = this.jobs.get(key);
    if (!job) {
      const controller = new AbortController();
      const promise = this.limiter.run(() => this.convert(target, size, plan, dir, stem), controller.signal).finally(() => this.jobs.delete(key));
      job = { promise, controller, waiters: 0 };
      this.jobs.set(key, job);
    }
    const shared = job;
    shared.waiters++;
    const onAbort = () => {
      if (--shared.waiters === 0) shared.controller.abort(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await shared.promise;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Removes the cached previews of a file, or of everything under a folder. */
  async forget(abs: string): Promise<void> {
    const mirror = this.mirrorOf(abs);
    if (!mirror) return;
    await removeMirror(mirror);
  }

  /** Conversions running and waiting (for tests and status). */
  get load(): { active: number; waiting: number } {
    return { active: this.limiter.active, waiting: this.limiter.waiting };
  }

  async close(): Promise<void> {
    await this.heic.close();
  }

  /** The cache folder mirroring `abs` (a path inside the root), or undefined for anything else. */
  private mirrorOf(abs: string): string | undefined {
    const rel = path.relative(this.root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return path.join(this.cacheDir, rel);
  }

  private async convert(target: Target, size: PreviewSize, plan: PreviewPlan, dir: string | undefined, stem: string): Promise<PreviewOutcome> {
    const spec = SIZES[size];
    const fh = await openForRead(target);
    let image: Sharp;
    try {
      // What was opened must still be a regular file (the path may have been swapped meanwhile).
      if (!(await fh.stat()).isFile()) throw new ConflictError('the file changed while it was opened');
      try {
        // A .heif may hold AV1 (AVIF) rather than HEVC: sharp reads those.
        image = plan === 'heic' ? await this.openHeif(fh, target).catch((err) => this.retryWithSharp(err, fh, target)) : await this.openWithSharp(fh, target);
      } catch (err) {
        if (err instanceof PayloadTooLargeError) throw err;
        return await this.failed(target, dir, stem, err);
      }
      let data: Buffer;
      try {
        data = await image
          .resize(spec.width, spec.height, { fit: spec.fit, position: 'centre', withoutEnlargement: !spec.enlarge })
          .webp({ quality: spec.quality })
          .toBuffer();
      } catch (err) {
        return await this.failed(target, dir, stem, err);
      }
      if (dir) await this.store(data, dir, stem);
      return { kind: 'buffer', data, type: OUTPUT_TYPE };
    } finally {
      await fh.close();
    }
  }

  /** A sharp pipeline on the opened file, after checking its declared size. */
  private async openWithSharp(fh: FileHandle, target: Target): Promise<Sharp> {
    const sharp = await loadSharp();
    // Reading through the descriptor we verified keeps a swapped symlink from redirecting us.
    // Elsewhere sharp gets the path, or the bytes when the path is not UTF-8 (sharp takes strings).
    const input = process.platform === 'linux' ? `/proc/self/fd/${fh.fd}` : hasEscapes(target.real) ? await fh.readFile() : target.real;
    const meta = await sharp(input, { limitInputPixels: false }).metadata(); // header only
    if (!meta.width || !meta.height) throw new Error('the image has no dimensions');
    this.checkPixels(meta.width, meta.height);
    return sharp(input, { limitInputPixels: this.maxPixels, autoOrient: true });
  }

  private retryWithSharp(err: unknown, fh: FileHandle, target: Target): Promise<Sharp> {
    if (err instanceof PayloadTooLargeError) throw err;
    return this.openWithSharp(fh, target).catch(() => Promise.reject(err));
  }

  /** HEIC/HEIF: decoded to RGBA in a worker (libheif applies the container's rotation). */
  private async openHeif(fh: FileHandle, target: Target): Promise<Sharp> {
    const fileSize = target.stat?.size ?? 0;
    if (fileSize > this.maxHeicBytes) throw new PayloadTooLargeError(`HEIC files over ${this.maxHeicBytes} bytes get no preview`);
    const data = await fh.readFile();
    const sharp = await loadSharp();
    try {
      const px = await this.heic.decode(data, this.maxPixels);
      return sharp(px.data, { raw: { width: px.width, height: px.height, channels: 4 }, limitInputPixels: this.maxPixels });
    } catch (err) {
      if (err instanceof HeicTooLargeError) this.checkPixels(err.width, err.height);
      throw err;
    }
  }

  private checkPixels(width: number, height: number): void {
    if (width * height > this.maxPixels) {
      throw new PayloadTooLargeError(`the image is ${width}×${height} pixels, over the limit of ${this.maxPixels}`);
    }
  }

  /** Writes a preview into the cache; failures only cost the cache. */
  private async store(data: Buffer, dir: string, stem: string): Promise<void> {
    try {
      await storePreview(dir, stem, data);
    } catch (err) {
      this.log.warn(`preview cache: cannot write in ${displayName(dir)}: ${(err as Error).message}`);
    }
  }

  /** Remembers that this version of the file cannot be converted, and answers raw. */
  private async failed(target: Target, dir: string | undefined, stem: string, err: unknown): Promise<PreviewOutcome> {
    this.log.warn(`preview of ${displayName(target.virtual)} failed, serving the original: ${(err as Error).message}`);
    if (dir) await markFailed(dir, stem);
    return { kind: 'raw' };
  }
}

let sharpModule: Promise<typeof import('sharp').default> | undefined;

/** sharp loads libvips (half a second): only when the first preview is made, never for CLI commands. */
function loadSharp(): Promise<typeof import('sharp').default> {
  sharpModule ??= import('sharp').then(({ default: sharp }) => {
    // libvips caches operations by file name; we read through /proc/self/fd/N, whose names
    // are reused for other files, and we keep our own cache anyway.
    sharp.cache(false);
    return sharp;
  });
  return sharpModule;
}

/** `<size>-<version>-<inode>-<mtime µs>-<bytes>`: changes whenever the file does. */
function variantStem(size: PreviewSize, target: Target): string {
  const st = target.stat!;
  const mtime = Math.round(st.mtimeMs * 1000).toString(36);
  return `${size}-v${PREVIEW_FORMAT_VERSION}-${st.ino.toString(36)}-${mtime}-${st.size.toString(36)}`;
}
