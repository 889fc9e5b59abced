/** The files contract (filebrowser's FileInfo shape), shared by the server and the web UI. */

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

export interface UsageDto {
  total: number;
  used: number;
}

/** One NDJSON line of GET /api/search. */
export interface SearchResultDto {
  dir: boolean;
  path: string;
}

export const CHECKSUM_ALGOS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumAlgo = (typeof CHECKSUM_ALGOS)[number];

export const ARCHIVE_ALGOS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'] as const;
export type ArchiveAlgo = (typeof ARCHIVE_ALGOS)[number];
