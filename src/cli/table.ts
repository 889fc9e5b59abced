/** Aligned plain-text output for humans (machines use --json). */

/** A table with a header row; columns are padded to their widest cell, the last one is not. */
export function table(header: string[], rows: Array<Array<string | number | boolean>>): string {
  const cells = [header, ...rows.map((r) => r.map(cellText))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => width(r[i] ?? ''))));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `key: value` lines with the values aligned. */
export function keyValues(pairs: Array<[string, string | number | boolean]>): string {
  const w = Math.max(0, ...pairs.map(([k]) => width(k) + 1));
  return pairs.map(([k, v]) => `${pad(`${k}:`, w)}  ${cellText(v)}`.trimEnd()).join('\n');
}

function cellText(v: string | number | boolean): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  // One line per cell: control characters would break the alignment (and the terminal).
  // eslint-disable-next-line no-control-regex
  return String(v).replace(/[\u0000-\u001f\u007f]/g, '?');
}

/** Display width: code points, so that accented names do not skew the columns. */
function width(s: string): number {
  return [...s].length;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}
