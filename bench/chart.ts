/**
 * bench/results/latest.svg: one bar per workload with a same-run ratio, the target marked, so a
 * reader sees the standing at a glance. The axis is logarithmic (ratios from 0.05× to 20×),
 * so "half as fast" and "twice as fast" are the same distance from 1×.
 */

/** A workload's same-run ratio against its baseline, and the ratio it should reach. */
export interface Score {
  value: number;
  target: number;
  /** Whether a higher ratio is better (throughput) or a lower one (time against a baseline's time). */
  better: 'higher' | 'lower';
}

export interface ChartRow {
  workload: string;
  score?: Score;
}

const MIN = 0.05;
const MAX = 20;
const LABEL_W = 330;
const BAR_W = 420;
const VALUE_W = 175;
const ROW_H = 26;
const TOP = 44;
const WIDTH = LABEL_W + BAR_W + VALUE_W;

/** The x of a ratio on the logarithmic axis, clamped to the chart. */
export function xOf(ratio: number): number {
  const clamped = Math.min(MAX, Math.max(MIN, ratio));
  return LABEL_W + (BAR_W * Math.log(clamped / MIN)) / Math.log(MAX / MIN);
}

export function meets(s: Score): boolean {
  return s.better === 'higher' ? s.value >= s.target : s.value <= s.target;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** The SVG document: rows without a finite score are left out. */
export function renderChart(rows: ChartRow[], title: string): string {
  const scored = rows.filter((r): r is ChartRow & { score: Score } => !!r.score && Number.isFinite(r.score.value));
  const height = TOP + scored.length * ROW_H + 34;
  const one = xOf(1);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="18" font-size="14" font-weight="600" fill="#111">${escapeXml(title)}</text>`,
    `<text x="8" y="34" fill="#555">fm against its baseline in the same run; | marks the target; green meets it, orange does not</text>`,
  ];
  for (const tick of [0.1, 0.5, 1, 2, 10]) {
    const x = xOf(tick).toFixed(1);
    parts.push(`<line x1="${x}" y1="${TOP - 4}" x2="${x}" y2="${height - 26}" stroke="${tick === 1 ? '#888' : '#ddd'}"/>`);
    parts.push(`<text x="${x}" y="${height - 12}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  scored.forEach((r, i) => {
    const y = TOP + i * ROW_H;
    const { value, target, better } = r.score;
    const x = xOf(value);
    const ok = meets(r.score);
    const [from, to] = x < one ? [x, one] : [one, x];
    parts.push(
      `<g class="${ok ? 'meets' : 'misses'}">`,
      `<text x="8" y="${y + 16}" fill="#111">${escapeXml(shorten(r.workload, 52))}</text>`,
      `<rect x="${from.toFixed(1)}" y="${y + 5}" width="${Math.max(1, to - from).toFixed(1)}" height="${ROW_H - 10}" fill="${ok ? '#2e7d32' : '#e67700'}"/>`,
      `<line class="target" x1="${xOf(target).toFixed(1)}" y1="${y + 1}" x2="${xOf(target).toFixed(1)}" y2="${y + ROW_H - 1}" stroke="#111" stroke-width="2"/>`,
      `<text x="${LABEL_W + BAR_W + 8}" y="${y + 16}" fill="#111">${fmtRatio(value)} (target ${better === 'higher' ? '≥' : '≤'} ${fmtRatio(target)})</text>`,
      '</g>',
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function fmtRatio(n: number): string {
  return `${n >= 10 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(2)}×`;
}
