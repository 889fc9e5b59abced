/**
 * File names are bytes. Linux allows any byte but "/" and NUL in a name, and a name need not
 * be valid UTF-8; fm still has to list, open, move and delete such files. Inside fm (and on
 * the wire) a name is a JS string in which every byte that is not part of valid UTF-8 is
 * written as one private-use character, U+F700 + the byte (U+F780–U+F7FF). Names are valid
 * UTF-8 on the wire, round-trip through URLs and JSON, and map back to the exact bytes.
 *
 * The mapping is a bijection between byte strings and the strings `decodeName` produces: valid
 * UTF-8 that encodes a character of the escape range itself is escaped byte by byte, so no
 * real name can be mistaken for an escaped one. A request may spell a valid UTF-8 character
 * with escapes; `canonicalName` folds it back, so rules see one spelling of every name.
 */
import { isUtf8 } from 'node:buffer';

const ESCAPE_BASE = 0xf700;
const ESCAPE_FIRST = 0xf780;
const ESCAPE_LAST = 0xf7ff;
/** Any escape character. */
const ESCAPES = /[\uf780-\uf7ff]/;
/** What a lossy (string) readdir shows for a name that needs the byte-exact reading. */
const SUSPECT = /[\ufffd\uf780-\uf7ff]/;

/** True when a string holds escaped bytes (it must be encoded before it reaches the OS). */
export function hasEscapes(s: string): boolean {
  return ESCAPES.test(s);
}

/**
 * True when a name read as a string (Node replaces invalid UTF-8 with U+FFFD) may not be the
 * name on disk: re-read its folder as bytes.
 */
export function isSuspect(name: string): boolean {
  return SUSPECT.test(name);
}

/** Bytes (a name or a path, as the OS gives them) to fm's string form. */
export function decodeName(bytes: Uint8Array): string {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buf)) {
    const s = buf.toString('utf8');
    if (!ESCAPES.test(s)) return s;
  }
  let out = '';
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i];
    if (b < 0x80) {
      // Runs of ASCII in one go.
      let j = i + 1;
      while (j < n && buf[j] < 0x80) j++;
      out += buf.toString('latin1', i, j);
      i = j;
      continue;
    }
    const cp = utf8At(buf, i);
    if (cp === -1 || (cp >= ESCAPE_FIRST && cp <= ESCAPE_LAST)) {
      out += String.fromCharCode(ESCAPE_BASE + b);
      i += 1;
    } else {
      out += String.fromCodePoint(cp);
      i += cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }
  }
  return out;
}

/** The code point of the well-formed UTF-8 sequence starting at `i`, or -1. */
function utf8At(buf: Buffer, i: number): number {
  const b0 = buf[i];
  const cont = (k: number) => (i + k < buf.length && (buf[i + k] & 0xc0) === 0x80 ? buf[i + k] & 0x3f : -1);
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? -1 : ((b0 & 0x1f) << 6) | c1;
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 < 0 || c2 < 0) return -1;
    const cp = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return -1; // overlong, surrogate
    return cp;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return -1;
    const cp = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    if (cp < 0x10000 || cp > 0x10ffff) return -1;
    return cp;
  }
  return -1;
}

/** fm's string form to the bytes the OS knows the name by. */
export function nameBytes(s: string): Buffer {
  if (!ESCAPES.test(s)) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= ESCAPE_FIRST && c <= ESCAPE_LAST) {
      if (i > from) parts.push(Buffer.from(s.slice(from, i), 'utf8'));
      parts.push(Buffer.of(c - ESCAPE_BASE));
      from = i + 1;
    }
  }
  if (from < s.length) parts.push(Buffer.from(s.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/**
 * A path or name as node:fs takes it: the string itself when it holds no escapes (the common,
 * fast case), else its exact bytes.
 */
export function osPath(s: string): string | Buffer {
  return ESCAPES.test(s) ? nameBytes(s) : s;
}

/** The one spelling of a name: escapes that form valid UTF-8 become the characters they encode. */
export function canonicalName(s: string): string {
  return ESCAPES.test(s) ? decodeName(nameBytes(s)) : s;
}

/** For people (logs, messages, hook variables): each escaped byte as `\xHH`. */
export function displayName(s: string): string {
  if (!ESCAPES.test(s)) return s;
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += c >= ESCAPE_FIRST && c <= ESCAPE_LAST ? `\\x${(c - ESCAPE_BASE).toString(16).toUpperCase()}` : ch;
  }
  return out;
}
