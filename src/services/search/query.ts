/**
 * The search query language: filebrowser's syntax plus filters.
 *
 * - `case:sensitive` makes name matching case-sensitive (`case:insensitive` is the default).
 * - `type:image|audio|music|video|pdf` match by file type; `type:X` for anything else means the
 *   extension `.X`, as does `ext:X` (also `ext:X,Y`). All type/ext conditions are OR'ed.
 * - `size>10MB`, `size<=1k`, … (binary units, case-insensitive: b, k/kb/kib, m/mb/mib, g…, t…)
 *   match files only. `modified<7d` (changed in the last 7 days), `modified>2w` (longer ago),
 *   `modified>2024-01-01` (after that date, UTC unless a time with an offset is given).
 *   Units of age: s, m (minutes), h, d, w, mo (30 days), y (365 days). Filters are AND'ed.
 * - The rest is the name query: `"quoted phrases"` are one term each, other words split on
 *   spaces, and a name matches when it contains ANY term (no terms: every name matches).
 */
import path from 'node:path';
import { BadRequestError } from '../../errors.ts';
import { typeFromName } from '../files/types.ts';
import { parseSize } from '../../api/size.ts';

export type Comparison = '<' | '<=' | '>' | '>=' | '=';

export interface NumberFilter {
  op: Comparison;
  value: number;
}

export interface SearchQuery {
  /** Name terms (lower-cased unless caseSensitive); a name matches if it contains any. */
  terms: string[];
  caseSensitive: boolean;
  /** File types from `type:` (image, audio, video, pdf). */
  types: Array<'image' | 'audio' | 'video' | 'pdf'>;
  /** Extensions from `type:`/`ext:`, lower-case with the dot (".md"). */
  extensions: string[];
  /** Size filters in bytes (files only). */
  size: NumberFilter[];
  /** Modification-time filters in epoch milliseconds. */
  modified: NumberFilter[];
}

const KNOWN_TYPES: Record<string, SearchQuery['types'][number]> = {
  image: 'image',
  audio: 'audio',
  music: 'audio',
  video: 'video',
  pdf: 'pdf',
};

const AGE_UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  mo: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

const MAX_QUERY_LENGTH = 1000;
const TOKEN = /"([^"]*)"?|(\S+)/g;
const FILTER = /^(size|modified)(<=|>=|<|>|=)(.+)$/i;
const FLIP: Record<Comparison, Comparison> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

/** Parses a query string; throws 400 on a malformed filter. `now` anchors relative ages. */
export function parseQuery(raw: string, now = Date.now()): SearchQuery {
  if (raw.length > MAX_QUERY_LENGTH) throw new BadRequestError('the query is too long');
  const q: SearchQuery = { terms: [], caseSensitive: false, types: [], extensions: [], size: [], modified: [] };
  const words: string[] = [];
  for (const m of raw.matchAll(TOKEN)) {
    if (m[1] !== undefined) {
      if (m[1] !== '') words.push(m[1]); // a quoted phrase is one term, whatever it contains
      continue;
    }
    const tok = m[2];
    const lower = tok.toLowerCase();
    if (lower === 'case:sensitive') q.caseSensitive = true;
    else if (lower === 'case:insensitive') continue;
    else if (/^type:\w+$/i.test(tok)) addType(q, tok.slice(5).toLowerCase());
    else if (/^ext:[^\s,]+(,[^\s,]+)*$/i.test(tok)) for (const e of tok.slice(4).split(',')) q.extensions.push(extension(e));
    else if (FILTER.test(tok)) addFilter(q, tok, now);
    else words.push(tok);
  }
  q.terms = q.caseSensitive ? words : words.map((w) => w.toLowerCase());
  return q;
}

function addType(q: SearchQuery, t: string): void {
  const known = KNOWN_TYPES[t];
  if (known) q.types.push(known);
  else q.extensions.push(extension(t));
}

function extension(e: string): string {
  return `.${e.replace(/^\./, '').toLowerCase()}`;
}

function addFilter(q: SearchQuery, tok: string, now: number): void {
  const [, field, op, value] = FILTER.exec(tok)!;
  if (field.toLowerCase() === 'size') {
    let bytes: number;
    try {
      bytes = parseSize(value);
    } catch {
      throw new BadRequestError(`bad size in "${tok}" (try size>10MB)`);
    }
    q.size.push({ op: op as Comparison, value: bytes });
    return;
  }
  const age = /^(\d+(?:\.\d+)?)(s|min|mo|m|h|d|w|y)$/i.exec(value);
  if (age) {
    // "modified<7d": younger than 7 days, i.e. modified after now-7d: the comparison flips.
    q.modified.push({ op: FLIP[op as Comparison], value: now - Number(age[1]) * AGE_UNITS[age[2].toLowerCase()] });
    return;
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const dateOnly = value.length === 10;
    const t = Date.parse(dateOnly || /Z|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
    if (!Number.isNaN(t)) {
      // A bare date covers the whole day: "modified>2024-01-01" starts after that day.
      if (dateOnly && (op === '>' || op === '<=')) q.modified.push({ op: op as Comparison, value: t + 86_400_000 - 1 });
      else if (dateOnly && op === '=') {
        q.modified.push({ op: '>=', value: t }, { op: '<', value: t + 86_400_000 });
      } else q.modified.push({ op: op as Comparison, value: t });
      return;
    }
  }
  throw new BadRequestError(`bad date or age in "${tok}" (try modified<7d or modified>2024-01-01)`);
}

/** Whether the query needs sizes or times (the walk then stats each entry). */
export function needsStat(q: SearchQuery): boolean {
  return q.size.length > 0 || q.modified.length > 0;
}

/** Whether the query restricts by type or extension. */
function hasKinds(q: SearchQuery): boolean {
  return q.types.length > 0 || q.extensions.length > 0;
}

/** Whether the query restricts anything but names (type, extension, size, time). */
export function hasFilters(q: SearchQuery): boolean {
  return hasKinds(q) || q.size.length > 0 || q.modified.length > 0;
}

/** The entry facts a match needs (size and mtime only when `needsStat`). */
export interface Candidate {
  name: string;
  isDir: boolean;
  size?: number;
  mtimeMs?: number;
}

/** Whether an entry matches the query. Folders never match type, ext or size conditions. */
export function matches(q: SearchQuery, c: Candidate): boolean {
  if (hasKinds(q)) {
    if (c.isDir) return false;
    const ext = path.extname(c.name).toLowerCase();
    let kind = false;
    if (q.extensions.includes(ext)) kind = true;
    else if (q.types.length) {
      const t = typeFromName(c.name);
      kind = t !== undefined && (q.types as string[]).includes(t);
    }
    if (!kind) return false;
  }
  if (q.size.length) {
    if (c.isDir || c.size === undefined) return false;
    for (const f of q.size) if (!compare(c.size, f)) return false;
  }
  if (q.modified.length) {
    if (c.mtimeMs === undefined) return false;
    for (const f of q.modified) if (!compare(c.mtimeMs, f)) return false;
  }
  if (q.terms.length === 0) return true;
  const name = q.caseSensitive ? c.name : c.name.toLowerCase();
  return q.terms.some((t) => name.includes(t));
}

function compare(v: number, f: NumberFilter): boolean {
  switch (f.op) {
    case '<':
      return v < f.value;
    case '<=':
      return v <= f.value;
    case '>':
      return v > f.value;
    case '>=':
      return v >= f.value;
    case '=':
      return v === f.value;
  }
}
