/**
 * The treemap of a folder: one tile per entry, sized by bytes, its own largest entries drawn
 * inside. A folder's tile is a button (Tab to it, Enter to open it); files and the inner tiles
 * are pictures only: the table beside lists every entry for assistive technology.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AnalyzeEntryDto } from '../../api/analyze.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatSize } from '../../lib/format.ts';
import { displayName } from '../../lib/names.ts';
import { LABEL_HEIGHT, layoutTiles, type Tile } from './layout.ts';

const HUES = [210, 150, 35, 280, 0, 185, 90, 320, 55, 240];

function useWidth(ref: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    setWidth(el.clientWidth);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

export function Treemap({ root, onOpen }: { root: AnalyzeEntryDto; onOpen: (entry: AnalyzeEntryDto) => void }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const ref = useRef<HTMLElement>(null);
  const width = useWidth(ref);
  const height = Math.round(Math.min(560, Math.max(260, width * 0.6)));
  const tiles = useMemo(() => (width > 0 && root.size > 0 ? layoutTiles(root, width, height) : []), [root, width, height]);

  const label = (tile: Tile) => {
    const big = tile.width > 56 && tile.height > (tile.depth === 1 && tile.entry.isDir ? LABEL_HEIGHT - 2 : 30);
    if (!big) return null;
    return (
      <span className="treemap-label">
        <span className="treemap-name">{displayName(tile.entry.name)}</span> <span className="treemap-size">{formatSize(tile.entry.size, tag)}</span>
      </span>
    );
  };

  return (
    <figure ref={ref} className="treemap" style={{ height }} aria-label={t('analyzer.treemap')}>
      {tiles.map((tile) => {
        const style = { left: tile.x, top: tile.y, width: tile.width, height: tile.height, '--hue': HUES[tile.group % HUES.length] } as React.CSSProperties;
        const cls = `treemap-tile treemap-depth-${tile.depth}${tile.entry.isDir ? ' treemap-dir' : ''}`;
        if (tile.depth === 1 && tile.entry.isDir) {
          return (
            <button
              key={tile.entry.path}
              type="button"
              className={cls}
              style={style}
              onClick={() => onOpen(tile.entry)}
              aria-label={t('analyzer.open', { name: displayName(tile.entry.name), size: formatSize(tile.entry.size, tag) })}
            >
              {label(tile)}
            </button>
          );
        }
        return (
          <div key={tile.entry.path} className={cls} style={style} aria-hidden="true">
            {label(tile)}
          </div>
        );
      })}
    </figure>
  );
}
