/**
 * Listing selection by identity: the selected items' paths, anchor first. Never indexes: a
 * reload or the next folder would carry them onto other items.
 */
import { atom } from 'jotai';

export const selectedAtom = atom<string[]>([]);
export const selectedSetAtom = atom((get) => new Set(get(selectedAtom)));
export const selectedCountAtom = atom((get) => get(selectedAtom).length);

/** Multiple-selection mode (clicks toggle). */
export const multipleAtom = atom(false);

/** Clears the selection and leaves multiple-selection mode. */
export const clearSelectionAtom = atom(null, (_get, set) => {
  set(selectedAtom, []);
  set(multipleAtom, false);
});
