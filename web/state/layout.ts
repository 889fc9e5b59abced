/** Shell state: sidebar drawer, more-actions dropdown, loading bar, narrow-screen flag. */
import { atom } from 'jotai';

export const sidebarOpenAtom = atom(false);
export const moreOpenAtom = atom(false);

/** Number of page-level requests in flight; the progress bar shows while it is above 0. */
export const loadingAtom = atom(0);

/** Mobile breakpoint of spec §9. */
export const NARROW_MAX_WIDTH = 736;
