/**
 * The treemap's geometry, from d3-hierarchy: the folder's entries as tiles sized by bytes, each
 * folder's own entries drawn inside it. A folder's part not covered by its named entries (the
 * entries summed up in `rest`, and what lies deeper) is its own value, so every tile keeps its
 * folder's exact total.
 */
import { hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';
import type { AnalyzeEntryDto } from '../../api/analyze.ts';

export interface Tile {
  entry: AnalyzeEntryDto;
  /** 1: an entry of the folder shown; 2: an entry inside one of those. */
  depth: number;
  /** Index of the depth-1 tile it belongs to (its colour). */
  group: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Room above a folder's own tiles for its name. */
export const LABEL_HEIGHT = 20;

export function layoutTiles(root: AnalyzeEntryDto, width: number, height: number): Tile[] {
  const own = (e: AnalyzeEntryDto) => Math.max(0, e.size - (e.children ?? []).reduce((sum, c) => sum + c.size, 0));
  const tree = hierarchy(root, (e) => e.children).sum((e) => (e.children ? own(e) : e.size));
  const laid = treemap<AnalyzeEntryDto>()
    .tile(treemapSquarify)
    .size([width, height])
    .paddingInner(2)
    .paddingOuter((n) => (n.depth === 0 ? 0 : 3))
    .paddingTop((n) => (n.depth === 1 ? LABEL_HEIGHT : 0))
    .round(true)(tree);
  const tiles: Tile[] = [];
  (laid.children ?? []).forEach((top, group) => {
    for (const n of top.descendants()) {
      if (n.depth > 2 || n.x1 - n.x0 < 1 || n.y1 - n.y0 < 1) continue;
      tiles.push({ entry: n.data, depth: n.depth, group, x: n.x0, y: n.y0, width: n.x1 - n.x0, height: n.y1 - n.y0 });
    }
  });
  return tiles;
}
