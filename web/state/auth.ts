/** Session state: the token and the user it carries. */
import { atom } from 'jotai';
import type { TokenUser } from '../../src/api/user.ts';

/** The current JWT ('' when logged out). */
export const tokenAtom = atom('');

/** The signed-in user (from the token's `user` claim, updated locally after profile changes). */
export const userAtom = atom<TokenUser | null>(null);

export const loggedInAtom = atom((get) => get(userAtom) !== null);
