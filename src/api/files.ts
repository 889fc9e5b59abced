/**
 * The files contract (filebrowser's FileInfo shape), shared by the server and the web UI: types,
 * constants and the pure rules both sides apply (archive formats, free names, name order). No zod,
 * no node builtins: the web bundle imports this.
 */

export type FileType = 'image' | 'audio' | 'video' | 'pdf' | 'text' | 'textImmutable' | 'blob' | 'invalid_link' | '';

export interface FileInfoDto {
  path: string;
  name: string;
  size: number;
  extension: string;
  /** RFC 3339 timestamp. */
  modified: string;
  /** Go os.FileMode bits (permissions plus type bits), as filebrowser sends them. */
  mode: number;
  isDir: boolean;
  isSymlink: boolean;
  type: FileType;
  content?: string;
  subtitles?: string[];
  checksums?: Record<string, string>;
  token?: string;
  /** Total size of a folder's contents, when asked for with ?dirsizes=true and known. */
  dirSize?: number;
}

export interface Sorting {
  by: string;
  asc: boolean;
}

export interface ListingDto extends FileInfoDto {
  items: FileInfoDto[];
  numDirs: number;
  numFiles: number;
  sorting: Sorting;
  /** Present when the client paged with ?offset=&limit=: the total number of visible items. */
  numTotal?: number;
}

/**
 * GET /api/usage: filebrowser's total/used of the file system, or, for a user with a byte quota,
 * of the quota (total = quota, used = the scope's bytes), so filebrowser's own sidebar shows it.
 * fm's fields are there for a user with any quota.
 */
export interface UsageDto {
  total: number;
  used: number;
  /** The byte quota (0 = none). */
  quota?: number;
  /** The entry quota (0 = none). */
  quotaFiles?: number;
  /** Bytes in the user's scope. */
  bytes?: number;
  /** Entries (files, folders, links) in the user's scope. */
  files?: number;
}

/**
 * One NDJSON line of GET /api/search: filebrowser's `dir` and `path`, and fm's `size` (bytes, 0 for
 * a folder), `modified` (ISO time) and, for a file, its listing `type` (extra fields a filebrowser client ignores).
 */
export interface SearchResultDto {
  dir: boolean;
  path: string;
  size: number;
  modified: string;
  type?: FileType;
}

export const CHECKSUM_ALGOS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumAlgo = (typeof CHECKSUM_ALGOS)[number];

export const ARCHIVE_ALGOS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'] as const;
export type ArchiveAlgo = (typeof ARCHIVE_ALGOS)[number];

/** An archive format of folder downloads: its `algo` on the wire, the name users see, the file extension. */
export interface ArchiveFormat {
  algo: ArchiveAlgo;
  label: string;
  extension: string;
  contentType: string;
}

/** Every format the server streams, keyed by algo. */
export const ARCHIVE_FORMATS: Readonly<Record<ArchiveAlgo, ArchiveFormat>> = {
  zip: { algo: 'zip', label: 'zip', extension: '.zip', contentType: 'application/zip' },
  tar: { algo: 'tar', label: 'tar', extension: '.tar', contentType: 'application/x-tar' },
  targz: { algo: 'targz', label: 'tar.gz', extension: '.tar.gz', contentType: 'application/gzip' },
  tarbz2: { algo: 'tarbz2', label: 'tar.bz2', extension: '.tar.bz2', contentType: 'application/x-bzip2' },
  tarxz: { algo: 'tarxz', label: 'tar.xz', extension: '.tar.xz', contentType: 'application/x-xz' },
  tarlz4: { algo: 'tarlz4', label: 'tar.lz4', extension: '.tar.lz4', contentType: 'application/x-lz4' },
  tarsz: { algo: 'tarsz', label: 'tar.sz', extension: '.tar.sz', contentType: 'application/x-snappy-framed' },
  tarbr: { algo: 'tarbr', label: 'tar.br', extension: '.tar.br', contentType: 'application/x-brotli' },
  tarzst: { algo: 'tarzst', label: 'tar.zst', extension: '.tar.zst', contentType: 'application/zstd' },
};

/** The formats the download prompt offers (spec §9), in its order. */
export const PROMPT_ARCHIVE_FORMATS: readonly ArchiveFormat[] = (['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz'] as const).map(
  (algo) => ARCHIVE_FORMATS[algo],
);

/** `algo` as clients send it: empty, `true` and `zip` mean zip; undefined for an unknown format. */
export function parseArchiveAlgo(raw: string | undefined): ArchiveAlgo | undefined {
  if (raw === undefined || raw === '' || raw === 'true') return 'zip';
  return (ARCHIVE_ALGOS as readonly string[]).includes(raw) ? (raw as ArchiveAlgo) : undefined;
}

/**
 * The extension a numbered copy keeps (as node's path.extname): from the last dot on, unless the
 * dot starts the name (`.env`) or the name is only dots. Folders keep none.
 */
function numberedExtension(name: string, isDir: boolean): string {
  if (isDir) return '';
  const dot = name.lastIndexOf('.');
  return dot > 0 && !/^\.+$/.test(name) ? name.slice(dot) : '';
}

/**
 * The names tried, in order, for a copy beside an existing `name` (docs/decisions.md): `a.txt` →
 * `a (1).txt`, `a (2).txt`…, `a.tar.gz` → `a.tar (1).gz`, a folder `d` → `d (1)`. At most `limit`.
 */
export function* freeNameCandidates(name: string, isDir: boolean, limit = 10_000): Generator<string> {
  const ext = numberedExtension(name, isDir);
  const stem = ext ? name.slice(0, -ext.length) : name;
  for (let n = 1; n < limit; n++) yield `${stem} (${n})${ext}`;
}

/** `name` when it is free, else the first free candidate (see freeNameCandidates); undefined when all are taken. */
export function freeName(name: string, isTaken: (candidate: string) => boolean, isDir: boolean): string | undefined {
  if (!isTaken(name)) return name;
  for (const candidate of freeNameCandidates(name, isDir)) if (!isTaken(candidate)) return candidate;
  return undefined;
}

/**
 * The one name order of fm (listings, search, the UI): a key whose plain string order is the
 * natural, case-insensitive order: lower-cased, accents stripped, and each run of digits prefixed
 * by its length so that 9 < 10. Other characters keep their code order (`-` < `.` < digits < `_` < letters).
 * Self-contained (no outer names): listing workers may ship its source.
 */
export function nameSortKey(name: string): string {
  let key = name.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(key)) key = key.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  // A loop rather than replace() with a callback: this runs for every entry of a listing.
  let out = '';
  let from = 0;
  let i = 0;
  const len = key.length;
  while (i < len) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < len && key.charCodeAt(i) >= 48 && key.charCodeAt(i) <= 57) i++;
    let digits = runStart;
    while (digits < i - 1 && key.charCodeAt(digits) === 48) digits++; // leading zeros
    // '1'..'9' for lengths 1-9, then ':' '@' 'A'… (all below the lower-case letters).
    out += key.slice(from, runStart) + String.fromCharCode(0x30 + Math.min(i - digits, 42)) + key.slice(digits, i);
    from = i;
  }
  return from === 0 ? key : out + key.slice(from);
}

/** Compares two names in fm's order (nameSortKey, ties by the raw name's code units): A→Z. */
export function compareNames(a: string, b: string): number {
  const ka = nameSortKey(a);
  const kb = nameSortKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
