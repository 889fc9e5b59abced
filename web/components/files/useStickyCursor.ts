/** Keeps the keyboard cursor on the same entry when a live update inserts or removes entries above it. */
import { useEffect, useRef } from 'react';
import type { ResourceItem } from '../../api/resources.ts';

export function useStickyCursor(items: ResourceItem[], cursor: number | undefined, setCursor: (index: number | undefined) => void): void {
  const at = useRef<string | undefined>(undefined);
  useEffect(() => {
    const path = at.current;
    if (path !== undefined && cursor !== undefined && items[cursor]?.path !== path) {
      const moved = items.findIndex((it) => it.path === path);
      if (moved >= 0) return setCursor(moved);
    }
    at.current = cursor === undefined ? undefined : items[cursor]?.path;
  }, [items, cursor, setCursor]);
}
