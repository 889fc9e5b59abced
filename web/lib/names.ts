/**
 * File names that are not UTF-8, as people see them. The server sends such a name with each
 * byte that is not part of valid UTF-8 written as one private-use character, U+F700 + the byte
 * (U+F780–U+F7FF; src/services/files/disk/names.ts). URLs and API calls keep that string as it
 * is (encodeURIComponent); what is shown writes each such byte as `\xHH`, marked, with the
 * name's full bytes in a tooltip.
 */

const ESCAPE_BASE = 0xf700;
const ESCAPE_FIRST = 0xf780;
const ESCAPE_LAST = 0xf7ff;
const ESCAPES = /[\uf780-\uf7ff]/;

/** True when a name holds bytes that are not UTF-8. */
export function hasEscapes(name: string): boolean {
  return ESCAPES.test(name);
}

/** The byte an escape character stands for, or undefined for any other UTF-16 unit. */
function escapedByte(unit: number): number | undefined {
  return unit >= ESCAPE_FIRST && unit <= ESCAPE_LAST ? unit - ESCAPE_BASE : undefined;
}

const hex2 = (b: number) => b.toString(16).toUpperCase().padStart(2, '0');

/** A run of plain text, or one byte that is not UTF-8 (`byte` set, `text` its `\xHH`). */
export interface NamePart {
  text: string;
  byte?: number;
}

/** A name cut into plain runs and escaped bytes, for display with the bytes marked. */
export function nameParts(name: string): NamePart[] {
  if (!hasEscapes(name)) return [{ text: name }];
  const parts: NamePart[] = [];
  let from = 0;
  for (let i = 0; i < name.length; i++) {
    const byte = escapedByte(name.charCodeAt(i));
    if (byte === undefined) continue;
    if (i > from) parts.push({ text: name.slice(from, i) });
    parts.push({ text: `\\x${hex2(byte)}`, byte });
    from = i + 1;
  }
  if (from < name.length) parts.push({ text: name.slice(from) });
  return parts;
}

/** The name as plain text, each byte that is not UTF-8 as `\xHH` (titles, labels, messages). */
export function displayName(name: string): string {
  return hasEscapes(name)
    ? nameParts(name)
        .map((p) => p.text)
        .join('')
    : name;
}

/** The name's bytes on disk as hex pairs: `63 61 66 E9 2E 74 78 74`. */
export function nameBytesHex(name: string): string {
  const out: string[] = [];
  const encoder = new TextEncoder();
  for (const part of nameParts(name)) {
    if (part.byte !== undefined) out.push(hex2(part.byte));
    else for (const b of encoder.encode(part.text)) out.push(hex2(b));
  }
  return out.join(' ');
}

/**
 * The tooltip of a name: the name itself, or for one with bytes that are not UTF-8 its display
 * form and a line `bytesLine(hex)` with all its bytes.
 */
export function nameTitle(name: string, bytesLine: (hex: string) => string): string {
  return hasEscapes(name) ? `${displayName(name)}\n${bytesLine(nameBytesHex(name))}` : name;
}

/**
 * The text a rename field starts with. A name with bytes that are not UTF-8 is edited in its
 * display form, where `\xHH` is a byte and `\\` a backslash, so that the text maps back exactly
 * (`parseEditedName`); other names are edited as they are.
 */
export function editableName(name: string): string {
  if (!hasEscapes(name)) return name;
  return nameParts(name)
    .map((p) => (p.byte === undefined ? p.text.replace(/\\/g, '\\\\') : p.text))
    .join('');
}

/**
 * The name a rename field's text stands for (see `editableName`): for an original name with bytes
 * that are not UTF-8, `\xHH` (HH from 80 to FF) becomes that byte again and `\\` a backslash; any
 * other backslash stays as typed. Other names are taken as typed.
 */
export function parseEditedName(text: string, original: string): string {
  if (!hasEscapes(original)) return text;
  return text.replace(/\\\\|\\x([89a-fA-F][0-9a-fA-F])/g, (_m, hex: string | undefined) =>
    hex === undefined ? '\\' : String.fromCharCode(ESCAPE_BASE + Number.parseInt(hex, 16)),
  );
}
