/** Upload planning (spec §3 "Upload job", §4 "Conflicts"): job types, folder entries, conflict names. */
import { freeName } from '../../src/api/files.ts';
import { joinPath } from './paths.ts';

/** At most this many uploads run at once (spec §9). */
export const MAX_CONCURRENT_UPLOADS = 5;

export type UploadType = 'video' | 'audio' | 'image' | 'pdf' | 'text' | 'blob';

/** The job type from a MIME type's prefix. */
export function uploadType(mime: string): UploadType {
  const m = mime.toLowerCase();
  if (m.startsWith('video')) return 'video';
  if (m.startsWith('audio')) return 'audio';
  if (m.startsWith('image')) return 'image';
  if (m.startsWith('application/pdf')) return 'pdf';
  if (m.startsWith('text')) return 'text';
  return 'blob';
}

/** A file picked or dropped, with its path relative to the drop (`a/b.txt` for folder uploads, else its name). */
export interface PickedFile<F = File> {
  file: F;
  relativePath: string;
}

/** What to upload: folders to create (parents first) and files, each under `dir`. */
export interface UploadPlan<F = File> {
  dirs: string[];
  files: { file: F; path: string }[];
}

const clean = (rel: string) => rel.split('/').filter((s) => s && s !== '.' && s !== '..');

/** The entries of a pick: every folder of the relative paths (plus empty folders given apart), then the files. */
export function planUpload<F>(dir: string, picked: readonly PickedFile<F>[], emptyDirs: readonly string[] = []): UploadPlan<F> {
  const dirs = new Set<string>();
  const addParents = (parts: string[], includeLast: boolean) => {
    const n = includeLast ? parts.length : parts.length - 1;
    for (let i = 1; i <= n; i++) dirs.add(parts.slice(0, i).join('/'));
  };
  const files: { file: F; path: string }[] = [];
  for (const p of picked) {
    const parts = clean(p.relativePath);
    if (parts.length === 0) continue;
    addParents(parts, false);
    files.push({ file: p.file, path: joinPath(dir, parts.join('/')) });
  }
  for (const d of emptyDirs) {
    const parts = clean(d);
    if (parts.length) addParents(parts, true);
  }
  // Parents before children: shorter paths first.
  const sorted = [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  return { dirs: sorted.map((d) => joinPath(dir, d)), files };
}

/** The top-level names of a pick (for a folder upload, only the folder's own name counts for conflicts). */
export function topLevelNames(picked: readonly { relativePath: string }[], emptyDirs: readonly string[] = []): string[] {
  const names = new Set<string>();
  for (const p of [...picked.map((x) => x.relativePath), ...emptyDirs]) {
    const first = clean(p)[0];
    if (first) names.add(first);
  }
  return [...names];
}

/**
 * A free name next to `taken`: the shared rule the server uses for rename (src/api/files.ts freeName):
 * `a.txt` → `a (1).txt`, `a.tar.gz` → `a.tar (1).gz`, a folder `d` → `d (1)`.
 */
export function uniqueName(name: string, taken: ReadonlySet<string>, isDir: boolean): string {
  // When every candidate is taken the server's 409 brings the conflict prompt back.
  return freeName(name, (candidate) => taken.has(candidate), isDir) ?? name;
}

/** Replaces the first segment of a relative path (a renamed top-level entry). */
export function renameTop(relativePath: string, from: string, to: string): string {
  const parts = clean(relativePath);
  if (parts[0] === from) parts[0] = to;
  return parts.join('/');
}

/** A relative path with its top-level name renamed per `rename` (unchanged when not listed). */
export function renamedPath(relativePath: string, rename: ReadonlyMap<string, string>): string {
  const top = clean(relativePath)[0] ?? '';
  const to = rename.get(top);
  return to ? renameTop(relativePath, top, to) : relativePath;
}

export function renamePicked<F>(picked: readonly PickedFile<F>[], rename: ReadonlyMap<string, string>): PickedFile<F>[] {
  return picked.map((p) => ({ file: p.file, relativePath: renamedPath(p.relativePath, rename) }));
}

/**
 * Continue on an upload conflict: a free name for each clashing top-level entry, beside the
 * `used` names (the folder's and the batch's own) and each other. Folders get no extension split.
 */
export function clashRenames<F>(
  clashing: readonly string[],
  used: Set<string>,
  picked: readonly PickedFile<F>[],
  emptyDirs: readonly string[],
): Map<string, string> {
  const isDirName = (n: string) =>
    emptyDirs.some((d) => clean(d)[0] === n) || picked.some((p) => clean(p.relativePath).length > 1 && clean(p.relativePath)[0] === n);
  const rename = new Map<string, string>();
  for (const n of clashing) {
    const fresh = uniqueName(n, used, isDirName(n));
    used.add(fresh);
    rename.set(n, fresh);
  }
  return rename;
}
