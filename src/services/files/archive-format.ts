/**
 * The archive formats of raw folder downloads: names, extensions and content types. Kept apart
 * from archive.ts so that the server can start without loading the archivers.
 */
import { ARCHIVE_ALGOS, type ArchiveAlgo } from '../../api/files.ts';
import { BadRequestError } from '../../errors.ts';

const EXTENSIONS: Record<ArchiveAlgo, string> = {
  zip: '.zip',
  tar: '.tar',
  targz: '.tar.gz',
  tarbz2: '.tar.bz2',
  tarxz: '.tar.xz',
  tarlz4: '.tar.lz4',
  tarsz: '.tar.sz',
  tarbr: '.tar.br',
  tarzst: '.tar.zst',
};

const CONTENT_TYPES: Record<ArchiveAlgo, string> = {
  zip: 'application/zip',
  tar: 'application/x-tar',
  targz: 'application/gzip',
  tarbz2: 'application/x-bzip2',
  tarxz: 'application/x-xz',
  tarlz4: 'application/x-lz4',
  tarsz: 'application/x-snappy-framed',
  tarbr: 'application/x-brotli',
  tarzst: 'application/zstd',
};

/** `algo` as sent by clients: empty, `true` and `zip` mean zip; anything unknown is 400. */
export function checkArchiveAlgo(raw: string | undefined): ArchiveAlgo {
  if (raw === undefined || raw === '' || raw === 'true') return 'zip';
  if ((ARCHIVE_ALGOS as readonly string[]).includes(raw)) return raw as ArchiveAlgo;
  throw new BadRequestError(`unknown archive format "${raw}" (use ${ARCHIVE_ALGOS.join(', ')})`);
}

export const archiveExtension = (algo: ArchiveAlgo): string => EXTENSIONS[algo];
export const archiveContentType = (algo: ArchiveAlgo): string => CONTENT_TYPES[algo];
