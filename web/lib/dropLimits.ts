/** The share dialog's drop-link fields (text as typed) → the limits the API takes. */
import type { DropLimits } from '../../src/api/shares.ts';
import { parseSize } from '../../src/api/size.ts';

export interface DropDraft {
  uploadOnly: boolean;
  maxFiles: string;
  /** Sizes as people type them (`10MB`, `1.5GiB`, bytes). */
  maxFileSize: string;
  maxBytes: string;
}

export const EMPTY_DROP_DRAFT: DropDraft = { uploadOnly: false, maxFiles: '', maxFileSize: '', maxBytes: '' };

/** A count field: '' is no limit, a positive whole number a limit, anything else undefined (invalid). */
export function parseCountLimit(raw: string): number | null | undefined {
  const s = raw.trim();
  if (s === '') return null;
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n > 0 && Number.isSafeInteger(n) ? n : undefined;
}

/** A size field: '' is no limit, a size of at least one byte a limit, anything else undefined (invalid). */
export function parseSizeLimit(raw: string): number | null | undefined {
  if (raw.trim() === '') return null;
  try {
    const n = parseSize(raw);
    return n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The limits of a draft; undefined when a field is invalid (the dialog marks it and waits). */
export function draftLimits(d: DropDraft): DropLimits | undefined {
  const parsed = { maxFiles: parseCountLimit(d.maxFiles), maxFileSize: parseSizeLimit(d.maxFileSize), maxBytes: parseSizeLimit(d.maxBytes) };
  const limits: DropLimits = {};
  for (const [k, v] of Object.entries(parsed) as [keyof DropLimits, number | null | undefined][]) {
    if (v === undefined) return undefined;
    if (v !== null) limits[k] = v;
  }
  return limits;
}
