/** The resource the files screen shows, its sorted items and the reload trigger. */
import { atom } from 'jotai';
import type { Resource, ResourceItem } from '../api/resources.ts';

export interface Listing {
  resource: Resource;
  /** Items sorted per the user's sorting, folders first. */
  items: ResourceItem[];
  /** Number of folders at the start of `items`. */
  dirCount: number;
}

/** The loaded resource for the current /files path (a listing for folders). */
export const listingAtom = atom<Listing | null>(null);

/** The status of the last load error (0 = connection), or null. */
export const loadErrorAtom = atom<number | null>(null);

/** Bumped to ask the files screen to reload the current path. */
export const reloadAtom = atom(0);
export const requestReloadAtom = atom(null, (get, set) => set(reloadAtom, get(reloadAtom) + 1));
