/** The shell panel's visibility (spec §3 "Client state: showShell"). */
import { atom } from 'jotai';

export const showShellAtom = atom(false);
export const toggleShellAtom = atom(null, (get, set) => set(showShellAtom, !get(showShellAtom)));
