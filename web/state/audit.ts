/** The Activity page's filter and page, kept while the admin looks elsewhere. */
import { atom } from 'jotai';
import { NO_FILTER, type AuditFilter } from '../api/audit.ts';

export const activityFilterAtom = atom<AuditFilter>(NO_FILTER);
export const activityOffsetAtom = atom(0);
