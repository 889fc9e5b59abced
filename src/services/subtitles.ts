/**
 * Subtitles for the video player: WebVTT is served as it is; SubRip (.srt) and SubStation
 * Alpha (.ssa, .ass) are converted to WebVTT. The converters are lenient about what real files
 * contain (byte-order marks, CRLF, missing cue numbers, sections without blank lines between
 * them, legacy 8-bit encodings) and escape cue text so it cannot inject markup.
 */

export const SUBTITLE_FORMATS = ['vtt', 'srt', 'ass', 'ssa'] as const;
export type SubtitleFormat = (typeof SUBTITLE_FORMATS)[number];

/** Subtitle files larger than this are refused (413): real ones are a few hundred KiB. */
export const SUBTITLE_MAX_BYTES = 10 * 1024 * 1024;

/** The format of a subtitle file from its name, or undefined. */
export function subtitleFormat(name: string): SubtitleFormat | undefined {
  const m = /\.([a-z]+)$/i.exec(name);
  const ext = m?.[1].toLowerCase();
  return (SUBTITLE_FORMATS as readonly string[]).includes(ext ?? '') ? (ext as SubtitleFormat) : undefined;
}

/** Decodes subtitle bytes: UTF-8 (BOM or not), UTF-16 with a BOM, else Windows-1252. */
export function decodeSubtitleText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return decodeWindows1252(bytes);
  }
}

// Node 20's TextDecoder treats windows-1252 as ISO-8859-1; these are the bytes that differ.
const CP1252_HIGH =
  '\u20ac\ufffd\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\ufffd\u017d\ufffd' +
  '\ufffd\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\ufffd\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    out += String.fromCharCode(...chunk).replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
  }
  return out;
}

/** Converts decoded subtitle text to WebVTT (`vtt` input is returned unchanged). */
export function toWebVtt(text: string, format: SubtitleFormat): string {
  switch (format) {
    case 'vtt':
      return text;
    case 'srt':
      return srtToVtt(text);
    case 'ass':
    case 'ssa':
      return assToVtt(text);
  }
}

interface Cue {
  start: number;
  end: number;
  text: string;
}

function normalize(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

const SRT_TIMING = /^\s*(\d+):(\d{1,2}):(\d{1,2})(?:[.,:](\d{1,3}))?\s*-->\s*(\d+):(\d{1,2}):(\d{1,2})(?:[.,:](\d{1,3}))?/;

/** SubRip → WebVTT. Cue numbers are optional; b/i/u tags (and `{b}` forms) are kept, others dropped. */
export function srtToVtt(input: string): string {
  const cues: Cue[] = [];
  for (const block of normalize(input).split(/\n[ \t]*\n/)) {
    const lines = block.split('\n');
    const at = lines.findIndex((l) => SRT_TIMING.test(l));
    if (at < 0) continue;
    const m = SRT_TIMING.exec(lines[at])!;
    const text = lines
      .slice(at + 1)
      .map((l) => srtMarkup(l.replace(/\s+$/, '')))
      .filter((l) => l.trim() !== '')
      .join('\n');
    cues.push({ start: toMs(m[1], m[2], m[3], m[4]), end: toMs(m[5], m[6], m[7], m[8]), text });
  }
  return buildVtt(cues);
}

/** SubStation Alpha / Advanced SubStation Alpha → WebVTT. Styling and positioning are dropped. */
export function assToVtt(input: string): string {
  const cues: Cue[] = [];
  let section = '';
  // Both SSA (Marked, …) and ASS (Layer, …) put Start, End at 1, 2 and Text last.
  let columns = ['layer', 'start', 'end', 'style', 'name', 'marginl', 'marginr', 'marginv', 'effect', 'text'];
  for (const line of normalize(input).split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      section = header[1].trim().toLowerCase();
      continue;
    }
    if (section !== 'events') continue;
    const field = /^\s*([A-Za-z]+)\s*:\s?(.*)$/.exec(line);
    if (!field) continue;
    const kind = field[1].toLowerCase();
    if (kind === 'format') {
      columns = field[2].split(',').map((c) => c.trim().toLowerCase());
      continue;
    }
    if (kind !== 'dialogue') continue;
    const values = splitFields(field[2], columns.length);
    const get = (name: string) => values[columns.indexOf(name)];
    const start = assTime(get('start'));
    const end = assTime(get('end'));
    const text = assText(get('text') ?? '');
    if (start === undefined || end === undefined || !text) continue;
    cues.push({ start, end, text });
  }
  cues.sort((a, b) => a.start - b.start || a.end - b.end); // WebVTT wants cues in start order
  return buildVtt(cues);
}

/** Splits `a,b,c,…` into `n` fields, the last one keeping its commas. */
function splitFields(value: string, n: number): string[] {
  const out: string[] = [];
  let rest = value;
  for (let i = 0; i < n - 1; i++) {
    const comma = rest.indexOf(',');
    if (comma < 0) break;
    out.push(rest.slice(0, comma).trim());
    rest = rest.slice(comma + 1);
  }
  out.push(rest);
  return out;
}

function assTime(raw: string | undefined): number | undefined {
  const m = /^\s*(\d+):(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?\s*$/.exec(raw ?? '');
  return m ? toMs(m[1], m[2], m[3], m[4]) : undefined;
}

/**
 * ASS dialogue text → cue text: `\N`/`\n` break lines, `\h` is a hard space, `{\i1}`/`{\b1}`/
 * `{\u1}` become tags, `{\r}` resets them, drawings (`{\p1}`…`{\p0}`) and other overrides go.
 */
function assText(raw: string): string {
  let out = '';
  const open = new Set<string>();
  let drawing = false;
  const close = (tag: string) => {
    if (open.delete(tag)) out += `</${tag}>`;
  };
  for (const part of raw.split(/(\{[^}]*\})/)) {
    if (part.startsWith('{') && part.endsWith('}')) {
      for (const m of part.matchAll(/\\(r[^\\}]*|[biu]\d+|p\d+)(?=\\|}|$)/g)) {
        const code = m[1];
        if (code[0] === 'r') for (const t of [...open].reverse()) close(t);
        else if (code[0] === 'p') drawing = code !== 'p0';
        else {
          const tag = code[0];
          const on = code.slice(1) !== '0';
          if (on && !open.has(tag)) {
            open.add(tag);
            out += `<${tag}>`;
          } else if (!on) close(tag);
        }
      }
      continue;
    }
    if (drawing) continue;
    out += escapeCueText(part.replace(/\\[Nn]/g, '\n').replace(/\\h/g, '\u00a0'));
  }
  for (const t of [...open].reverse()) close(t);
  return out
    .split('\n')
    .filter((l) => l.replace(/<\/?[biu]>/g, '').trim() !== '')
    .join('\n');
}

const SRT_TAG = /<\s*(\/?)\s*([a-zA-Z]+)[^>]*>|\{(\/?)([biu])\}/g;

/** SRT line markup: b/i/u kept (attributes dropped), other tags such as <font> dropped, text escaped. */
function srtMarkup(line: string): string {
  let out = '';
  let last = 0;
  for (const m of line.matchAll(SRT_TAG)) {
    out += escapeCueText(line.slice(last, m.index));
    last = m.index! + m[0].length;
    const closing = m[1] ?? m[3];
    const tag = (m[2] ?? m[4]).toLowerCase();
    if (tag === 'b' || tag === 'i' || tag === 'u') out += `<${closing}${tag}>`;
  }
  return out + escapeCueText(line.slice(last));
}

/** Escapes text for a WebVTT cue payload (keeps entity references that are already there). */
function escapeCueText(s: string): string {
  return s
    .replace(/&(?!(?:amp|lt|gt|nbsp|lrm|rlm|#\d+|#x[0-9a-fA-F]+);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** h, m, s and a decimal fraction of a second ("5" = 500 ms, "05" = 50 ms) → milliseconds. */
function toMs(h: string, m: string, s: string, frac: string | undefined): number {
  const ms = frac ? Number(frac.padEnd(3, '0')) : 0;
  return ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + ms;
}

function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

function buildVtt(cues: Cue[]): string {
  let out = 'WEBVTT\n';
  for (const c of cues) out += `\n${vttTime(c.start)} --> ${vttTime(c.end)}\n${c.text}\n`;
  return out;
}
