/** File type detection: from the extension in listings, with a content sniff for single files. */
import path from 'node:path';
import mime from 'mime-types';
import type { FileType } from '../../api/files.ts';

/** Text files ≤ this size are editable and carry their content. */
export const TEXT_CONTENT_LIMIT = 10 * 1024 * 1024;

/** Extensions that are text whatever the MIME table says. */
const TEXT_EXTENSIONS = new Set(
  (
    'txt md markdown rst adoc csv tsv log ini cfg conf config env properties toml yaml yml json jsonc json5 xml ' +
    'html htm xhtml css scss sass less js mjs cjs jsx ts tsx mts cts vue svelte astro go rs py rb php pl pm lua r ' +
    'java kt kts scala groovy gradle c h cc cpp cxx hpp hh cs fs swift m mm dart zig nim ex exs erl hrl hs elm clj ' +
    'sql graphql gql proto sh bash zsh fish ps1 bat cmd mk cmake dockerfile tf hcl nix patch diff srt vtt ass ssa sub ' +
    'tex bib gitignore gitattributes editorconfig npmrc lock svgz'
  ).split(' '),
);
/** File names without an extension that are text. */
const TEXT_NAMES = new Set(
  'makefile dockerfile containerfile readme license licence copying authors changelog notice todo gemfile rakefile procfile vagrantfile jenkinsfile'.split(' '),
);
/** Extensions the MIME table gets wrong for our purposes. */
const OVERRIDES: Record<string, FileType> = {
  '.ts': 'text',
  '.mts': 'text',
  '.opus': 'audio',
  '.mkv': 'video',
  '.m4v': 'video',
  '.heic': 'image',
  '.heif': 'image',
  '.avif': 'image',
  '.dng': 'image',
  '.cr2': 'image',
  '.nef': 'image',
  '.svg': 'image',
};

/** The MIME type for a name (used for inline downloads), `application/octet-stream` when unknown. */
export function mimeOf(name: string): string {
  return mime.lookup(name) || 'application/octet-stream';
}

const typeByExtension = new Map<string, FileType | undefined>();

/** Type from the name alone; `undefined` when only the contents could tell. */
export function typeFromName(name: string): FileType | undefined {
  // Listings call this for every entry: cache by extension (a bounded set in practice).
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) {
    const ext = name.slice(dot).toLowerCase();
    if (typeByExtension.has(ext)) return typeByExtension.get(ext);
    const t = computeType(name);
    if (typeByExtension.size < 10_000) typeByExtension.set(ext, t);
    return t;
  }
  return computeType(name);
}

function computeType(name: string): FileType | undefined {
  const ext = path.extname(name).toLowerCase();
  if (ext in OVERRIDES) return OVERRIDES[ext];
  if (ext && TEXT_EXTENSIONS.has(ext.slice(1))) return 'text';
  if (!ext && TEXT_NAMES.has(name.toLowerCase())) return 'text';
  const m = mime.lookup(ext || name);
  if (!m) return undefined;
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  if (m.startsWith('image/')) return 'image';
  if (m.endsWith('/pdf')) return 'pdf';
  if (m.startsWith('text/') || m.endsWith('+json') || m.endsWith('+xml') || m === 'application/json' || m === 'application/javascript') {
    return 'text';
  }
  return 'blob';
}

/** Listing type: the name decides; unknown names are blobs (listings never read contents). */
export function listingType(name: string, size: number): FileType {
  const t = typeFromName(name) ?? 'blob';
  return t === 'text' && size > TEXT_CONTENT_LIMIT ? 'blob' : t;
}

/**
 * Whether a buffer (the first bytes of a file) looks like text: valid UTF-8 (a sequence cut at
 * the end is fine) and no control bytes below 0x09.
 */
export function looksLikeText(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) if (buf[i] <= 0x08) return false;
  let end = buf.length;
  // Allow a multi-byte sequence cut by the sample's end.
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const b = buf[end - back];
    if ((b & 0xc0) === 0xc0) {
      end -= back;
      break;
    }
    if ((b & 0x80) === 0) break;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/** Go os.FileMode bits for a Node mode (type bits as Go sets them). */
export function goFileMode(mode: number, isDir: boolean, isSymlink: boolean): number {
  let m = mode & 0o777;
  if (mode & 0o4000) m |= 1 << 23; // setuid
  if (mode & 0o2000) m |= 1 << 22; // setgid
  if (mode & 0o1000) m |= 1 << 20; // sticky
  if (isDir) m |= 2 ** 31;
  if (isSymlink) m |= 1 << 27;
  const fmt = mode & 0o170000;
  if (fmt === 0o010000) m |= 1 << 25; // named pipe
  if (fmt === 0o140000) m |= 1 << 24; // socket
  if (fmt === 0o060000) m |= 1 << 26; // block device
  if (fmt === 0o020000) m |= (1 << 26) | (1 << 21); // char device
  return m >>> 0;
}
