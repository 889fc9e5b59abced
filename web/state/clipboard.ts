/** The file clipboard: copy (c) or cut (x) of items from one folder. */
import { atom } from 'jotai';

export interface ClipboardItem {
  from: string;
  name: string;
}

export interface Clipboard {
  key: 'c' | 'x';
  items: ClipboardItem[];
  path: string;
}

export const clipboardAtom = atom<Clipboard | null>(null);
