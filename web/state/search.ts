/** The search overlay's visibility. */
import { atom } from 'jotai';

export const searchOpenAtom = atom(false);
