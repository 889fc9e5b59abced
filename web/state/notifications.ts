/** Notices shown bottom-right: successes vanish after about a second, errors stay until closed. */
import { atom } from 'jotai';

export interface Notice {
  id: number;
  kind: 'success' | 'error';
  message: string;
  /** i18n key shown instead of `message` (translated when rendered, so a language switch applies). */
  key?: string;
  /** A second, smaller line: the server's own text under a translated message. */
  detail?: string;
}

export const SUCCESS_MS = 1000;
export const MAX_NOTICES = 5;

export const noticesAtom = atom<Notice[]>([]);
const nextIdAtom = atom(1);

export const dismissNoticeAtom = atom(null, (get, set, id: number) => {
  set(
    noticesAtom,
    get(noticesAtom).filter((n) => n.id !== id),
  );
});

export const pushNoticeAtom = atom(null, (get, set, n: Omit<Notice, 'id'>) => {
  const notice = { ...n, id: get(nextIdAtom) };
  set(nextIdAtom, notice.id + 1);
  set(noticesAtom, [...get(noticesAtom), notice].slice(-MAX_NOTICES));
  if (n.kind === 'success') setTimeout(() => set(dismissNoticeAtom, notice.id), SUCCESS_MS);
});
