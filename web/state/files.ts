/** UI state of the files screen around the server's listing (which lives in the query cache). */
import { atom } from 'jotai';
import type { Resource, ResourceItem } from '../api/resources.ts';

export interface Listing {
  resource: Resource;
  /** Items in the server's order (folders first, then the user's sorting). */
  items: ResourceItem[];
  /** Number of folders at the start of `items`. */
  dirCount: number;
  /** Number of items in the folder: more than `items` while later pages are on their way. */
  total: number;
}

/** A path to select once the next listing arrives (after a rename). */
export const selectAfterReloadAtom = atom<string | undefined>(undefined);

/** What a single view does after its file was deleted (the preview moves on); null: go to the folder. */
export const afterSingleDeleteAtom = atom<{ run: () => void } | null>(null);
