/**
 * The JSON of a large folder sorted by name, rendered in the listing workers (one lstat and one
 * JSON fragment per entry, disk/listing-worker.ts) and put together here in listing order.
 */
import path from 'node:path';
import type { FileInfoDto, FileType, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { TEXT_CONTENT_LIMIT, goFileMode, listingType, typeFromName } from './types.ts';
import { PARALLEL_MIN, RENDERED_DIR, RENDERED_FILE, RENDERED_LINK, renderInWorkers } from './disk/listing-worker.ts';
import { lstatOrUndefined } from './disk/lookup.ts';
import { inDirection } from './folder-names.ts';
import { isoTime, visibleEntries, type VisibleEntries } from './listing.ts';
import { itemJson, makeQuote } from './listing-render.ts';

const quote = makeQuote();

/** Listing types by extension and by name, computed once here for the workers. */
function typeTables(names: string[]): { extTypes: Map<string, FileType | undefined>; nameTypes: Map<string, FileType | undefined> } {
  const extTypes = new Map<string, FileType | undefined>();
  const nameTypes = new Map<string, FileType | undefined>();
  // Names of a large folder mostly share an extension: a name ending with the last one seen
  // (a dot and no other dot after it) has it, and costs no string.
  let last = '';
  for (const name of names) {
    if (last && name.length > last.length && name.endsWith(last)) continue;
    const dot = name.lastIndexOf('.');
    if (dot > 0 && dot < name.length - 1) {
      last = name.slice(dot);
      const ext = last.toLowerCase();
      if (!extTypes.has(ext)) extTypes.set(ext, typeFromName(`x${ext}`));
    } else nameTypes.set(name, typeFromName(name));
  }
  return { extTypes, nameTypes };
}

/** A symbolic link of a listing resolved through the gate and rendered; undefined when it must not show. */
function renderLink(gate: Gate, target: Target, name: string): { json: Buffer; isDir: boolean } | undefined {
  const abs = (target.real === '/' ? '/' : `${target.real}/`) + name;
  const resolved = gate.resolveLinkEntry(target.access, abs);
  if (resolved === 'denied') return undefined; // never show where a link leaving the scope points
  const st = resolved === 'dangling' ? lstatOrUndefined(abs) : resolved.stat;
  if (!st) return undefined;
  const isDir = resolved !== 'dangling' && st.isDirectory();
  const size = isDir ? 4096 : st.size;
  const type: FileType = isDir ? '' : resolved === 'dangling' ? 'invalid_link' : st.isFIFO() ? 'blob' : listingType(name, size);
  const vpath = (target.virtual === '/' ? '/' : `${target.virtual}/`) + name;
  const json = itemJson(quote, vpath, name, size, isDir ? '' : path.extname(name), isoTime(st.mtimeMs), goFileMode(st.mode, isDir, true), isDir, true, type);
  return { json: Buffer.from(json), isDir };
}

/**
 * The JSON of a large folder sorted by name: the worker threads lstat and render the entries
 * while this thread puts them in name order (sorting them when the folder was just read); then
 * folders go first and the bytes are copied. Undefined when
 * the folder is small, sorted by size or date, or no worker is usable (the caller then uses
 * scanFolder).
 */
export async function renderLargeListing(
  gate: Gate,
  target: Target,
  base: FileInfoDto,
  sorting: Sorting,
  offset?: number,
  limit?: number,
  read?: VisibleEntries,
): Promise<Buffer | undefined> {
  if (sorting.by === 'size' || sorting.by === 'modified') return undefined;
  const entries = read ?? (await visibleEntries(gate, target));
  const { names } = entries;
  if (names.length < PARALLEL_MIN) return undefined;
  const rendering = renderInWorkers(
    {
      vprefix: target.virtual === '/' ? '/' : `${target.virtual}/`,
      ...typeTables(names),
      textLimit: TEXT_CONTENT_LIMIT,
    },
    entries,
  );
  if (!rendering) return undefined;
  const byName = inDirection(entries.ascending(), sorting.asc); // meanwhile, here
  const parts = await rendering;

  // Where each entry's bytes are: part p, index i - from; links rendered here.
  const partOf = new Uint8Array(names.length);
  for (let p = 0; p < parts.length; p++) partOf.fill(p, parts[p].from, parts[p].from + parts[p].result.kind.length);
  const frags = parts.map((p) => Buffer.from(p.result.frag.buffer, p.result.frag.byteOffset, p.result.frag.byteLength));
  const links = new Map<number, { json: Buffer; isDir: boolean }>();
  const dirs: number[] = [];
  const files: number[] = [];
  for (const i of byName) {
    const part = parts[partOf[i]];
    const k = part.result.kind[i - part.from];
    if (k === RENDERED_DIR) dirs.push(i);
    else if (k === RENDERED_FILE) files.push(i);
    else if (k === RENDERED_LINK) {
      const link = renderLink(gate, target, names[i]);
      if (!link) continue;
      links.set(i, link);
      (link.isDir ? dirs : files).push(i);
    }
  }
  let items = dirs.concat(files);
  const total = items.length;
  const paged = offset !== undefined || limit !== undefined;
  if (paged) items = items.slice(offset ?? 0, limit !== undefined ? (offset ?? 0) + limit : undefined);

  const head = Buffer.from(`${JSON.stringify(base).slice(0, -1)},"items":[`);
  const tail = Buffer.from(`],"numDirs":${dirs.length},"numFiles":${files.length},"sorting":${JSON.stringify(sorting)}${paged ? `,"numTotal":${total}` : ''}}`);
  // Each item's bytes: a link's own buffer, or a span of its part's fragments (no tuple per item).
  let size = head.length + tail.length + Math.max(0, items.length - 1);
  for (const i of items) {
    const link = links.get(i);
    const part = parts[partOf[i]];
    size += link ? link.json.length : part.result.fragOff[i - part.from + 1] - part.result.fragOff[i - part.from];
  }
  const out = Buffer.allocUnsafe(size);
  let off = head.copy(out, 0);
  for (let n = 0; n < items.length; n++) {
    if (n) out[off++] = 0x2c; // ','
    const i = items[n];
    const link = links.get(i);
    if (link) {
      off += link.json.copy(out, off);
      continue;
    }
    const p = partOf[i];
    const { fragOff } = parts[p].result;
    const at = i - parts[p].from;
    off += frags[p].copy(out, off, fragOff[at], fragOff[at + 1]);
  }
  tail.copy(out, off);
  return out;
}
