/** Keeps the keyboard cursor on the same entry when a live update inserts or removes entries above it. */
import { useEffect, useRef } from 'react';
import type { ResourceItem } from '../../api/resources.ts';

export function useStickyCursor(items: ResourceItem[], cursor: number | undefined, setCursor: (index: number | undefined) => void): void {
  const seen = useRef<{ items: ResourceItem[]; path?: string }>({ items });
  useEffect(() => {
    const before = seen.current;
    // Only new items move the cursor; the cursor's own moves are the user's.
    if (before.items !== items && before.path !== undefined && cursor !== undefined && items[cursor]?.path !== before.path) {
      const moved = items.findIndex((it) => it.path === before.path);
      if (moved >= 0) {
        seen.current = { items, path: before.path };
        setCursor(moved);
        return;
      }
    }
    seen.current = { items, path: cursor === undefined ? undefined : items[cursor]?.path };
  }, [items, cursor, setCursor]);
}
