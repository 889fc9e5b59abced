/**
 * The JSON of recent small listings, reused while every input of its rendering is the same.
 *
 * A listing's JSON is a pure function of its inputs: the folder's scan made for this request
 * (the visible names in the order they were read, each entry's size, time, mode and kind, the
 * counts), the folder's own info, the sorting and the page. Every request still authenticates,
 * decides what the user may see (rules, dotfiles, fm's own files, uploads in progress), resolves
 * links and scans the folder (disk/folder-watch.ts answers from entries the kernel reports
 * unchanged, trusted for 2 s at most); only the sort and the rendering are skipped when all of
 * that came out exactly as for a kept rendering. Nothing here is keyed by user or by time: two
 * requests get the same bytes only when their inputs would render the same bytes, so a cached
 * answer cannot be staler than the scan, nor one user's view leak to another.
 */
import type { FileInfoDto, Sorting } from '../../api/files.ts';
import { UseOrderMap } from '../use-order-map.ts';
import type { FolderScan } from './listing.ts';

/** What a listing's JSON is rendered from (besides the renderer's own constants). */
export interface ListingInputs {
  scan: FolderScan;
  base: FileInfoDto;
  sorting: Sorting;
  offset?: number;
  limit?: number;
}

interface Rendered {
  scan: FolderScan;
  base: FileInfoDto;
  sorting: Sorting;
  offset?: number;
  limit?: number;
  json: Buffer;
  bytes: number;
}

/** Listings of more entries are rendered every time (large folders go to the workers anyway). */
const MAX_ENTRIES = 2000;
/** Renderings kept per folder (users with different views, sortings or pages of one folder). */
const PER_FOLDER = 4;
let maxBytes = 16 << 20;
/** By the folder's real path, least recently used first. */
const kept = new UseOrderMap<string, Rendered[]>();
let keptBytes = 0;

/** The memory bound, for tests (also forgets everything). */
export function limitListingMemo(bytes = 16 << 20): void {
  kept.clear();
  keptBytes = 0;
  maxBytes = bytes;
}

/** The JSON of the listing of the folder at `real`: a kept rendering of the same inputs, or `render()`'s. */
export function renderedListing(real: string, inputs: ListingInputs, render: () => Buffer): Buffer {
  if (inputs.scan.names.length > MAX_ENTRIES) return render();
  const variants = kept.get(real);
  const hit = variants?.find((r) => sameInputs(r, inputs));
  if (variants && hit) {
    kept.touch(real);
    return hit.json;
  }
  const json = render();
  keep(real, copyInputs(inputs, json));
  return json;
}

function keep(real: string, r: Rendered): void {
  const variants = kept.get(real) ?? [];
  kept.delete(real);
  variants.push(r);
  keptBytes += r.bytes;
  if (variants.length > PER_FOLDER) keptBytes -= variants.shift()!.bytes;
  kept.set(real, variants);
  for (const [oldest, list] of kept) {
    if (keptBytes <= maxBytes) break;
    kept.delete(oldest);
    for (const o of list) keptBytes -= o.bytes;
  }
}

/** The inputs as they were (the scan's arrays are the caller's), with the rendering. */
function copyInputs(i: ListingInputs, json: Buffer): Rendered {
  const s = i.scan;
  const scan: FolderScan = {
    ...s,
    names: s.names.slice(),
    size: s.size.slice(),
    mtime: s.mtime.slice(),
    mode: s.mode.slice(),
    kind: s.kind.slice(),
    present: s.present.slice(),
  };
  // The arrays' bytes and about a pointer and a small header per name, besides the JSON.
  const bytes = json.length + s.names.length * (8 + 8 + 8 + 1 + 1 + 16) + 512;
  return { scan, base: { ...i.base }, sorting: { ...i.sorting }, offset: i.offset, limit: i.limit, json, bytes };
}

function sameInputs(r: Rendered, i: ListingInputs): boolean {
  return r.offset === i.offset && r.limit === i.limit && sameFields(r.sorting, i.sorting) && sameFields(r.base, i.base) && sameScan(r.scan, i.scan);
}

/** The same own keys in the same order (JSON.stringify keeps it) with the same primitive values (the DTOs here hold nothing else). */
function sameFields(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let j = 0; j < ka.length; j++) {
    const k = ka[j];
    if (k !== kb[j] || (a as Record<string, unknown>)[k] !== (b as Record<string, unknown>)[k]) return false;
  }
  return true;
}

function sameScan(a: FolderScan, b: FolderScan): boolean {
  const n = a.names.length;
  if (a.virtual !== b.virtual || n !== b.names.length || a.numDirs !== b.numDirs || a.numFiles !== b.numFiles) return false;
  for (let i = 0; i < n; i++) {
    if (a.names[i] !== b.names[i] || a.size[i] !== b.size[i] || a.mtime[i] !== b.mtime[i] || a.mode[i] !== b.mode[i]) return false;
    if (a.kind[i] !== b.kind[i] || a.present[i] !== b.present[i]) return false;
  }
  return true;
}
