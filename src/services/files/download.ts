/**
 * What a raw download is, in domain terms (GET /api/raw and the public share download): the file
 * it names, or the folder / `files` selection to archive, its name, and the archive stream. The
 * HTTP side (headers, Range, conditional requests) is src/server/download.ts.
 */
import { ARCHIVE_FORMATS, type ArchiveAlgo } from '../../api/files.ts';
import { BadRequestError } from '../../errors.ts';
import type { Logger } from '../context.ts';
import { checkArchiveAlgo } from './archive/format.ts';
import type { Access, Gate, Target } from './gate.ts';
import { openForRead } from './io.ts';
import { baseName, cleanPath, isWithin, joinVirtual, parentOf } from './paths.ts';
import { displayName } from './disk/names.ts';
import type { BigIntStats, FileHandle } from './disk/types.ts';

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

/** A resolved download: one file, or an archive of checked targets. */
export type DownloadPlan =
  | { kind: 'file'; target: Target; name: string }
  | { kind: 'archive'; targets: Target[]; base: string; algo: ArchiveAlgo; name: string; contentType: string };

/** Resolves a download through the gate: the file, or what an archive holds and its name. */
export async function planDownload(gate: Gate, req: DownloadRequest): Promise<DownloadPlan> {
  const target = await gate.resolve(req.access, req.virtual, 'download');
  const files = req.files?.split(',').filter((s) => s !== '') ?? [];
  if (!target.isDir && files.length === 0) {
    if (!target.stat?.isFile()) throw new BadRequestError('not a regular file');
    return { kind: 'file', target, name: baseName(target.virtual) };
  }
  if (!target.isDir) throw new BadRequestError('files= needs a folder');
  const algo = checkArchiveAlgo(req.algo);
  const virtuals = files.length
    ? files.map((f) => {
        let decoded: string;
        try {
          decoded = decodeURIComponent(f);
        } catch {
          throw new BadRequestError('invalid percent-encoding in files');
        }
        return joinVirtual(target.virtual, cleanPath(decoded).path);
      })
    : [target.virtual];
  // Drop duplicates and items inside another selected item (they would be archived twice).
  const unique = [...new Set(virtuals)].sort();
  const selected = unique.filter((v) => !unique.some((o) => o !== v && isWithin(o, v)));
  const targets: Target[] = [];
  for (const v of selected) targets.push(await gate.resolve(req.access, v, 'download'));

  // Entries are named relative to `base`: the folder itself for one folder, else the common parent.
  const base = targets.length === 1 && targets[0].isDir ? targets[0].virtual : commonParent(targets.map((t) => t.virtual));
  let name = baseName(base) || req.rootName || 'archive';
  if (targets.length > 1) name = `_${name}`;
  const format = ARCHIVE_FORMATS[algo];
  return { kind: 'archive', targets, base, algo, name: `${name}${format.extension}`, contentType: format.contentType };
}

/** Opens a planned file through the gate; throws 400 when it is no longer a regular file. */
export async function openDownloadFile(target: Target): Promise<{ fh: FileHandle; st: BigIntStats }> {
  const fh = await openForRead(target);
  try {
    const st = await fh.stat({ bigint: true });
    if (!st.isFile()) throw new BadRequestError('not a regular file');
    return { fh, st };
  } catch (err) {
    await fh.close().catch(() => {});
    throw err;
  }
}

/** The archive stream of a plan; the archivers load on the first archive, not at start-up. */
export async function archiveStream(gate: Gate, req: DownloadRequest, plan: Extract<DownloadPlan, { kind: 'archive' }>, log: Logger) {
  const { createArchiveStream } = await import('./archive/index.ts');
  return createArchiveStream(
    gate,
    req.access,
    plan.targets,
    plan.base,
    plan.algo,
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
