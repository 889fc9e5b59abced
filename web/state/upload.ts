/** What the upload panel shows (spec §3 "Upload panel item", "Upload state"); the upload manager publishes it. */
import { atom } from 'jotai';
import type { UploadType } from '../lib/uploads.ts';

export interface UploadPanelItem {
  id: number;
  name: string;
  isDir: boolean;
  type: UploadType;
  /** 0–100; a folder counts as 100. */
  progress: number;
}

export interface UploadSnapshot {
  /** Active uploads. */
  items: UploadPanelItem[];
  /** Files and folders still uploading (active and queued). */
  count: number;
  /** Overall percentage. */
  percent: number;
  /** MB/s, averaged over the active uploads. */
  speed: number;
  /** Seconds left (Infinity when unknown). */
  eta: number;
  /** Everything finished: the panel shows 100 % for a moment before it goes. */
  done?: boolean;
}

export const EMPTY_UPLOADS: UploadSnapshot = { items: [], count: 0, percent: 0, speed: 0, eta: Infinity };

export const uploadAtom = atom<UploadSnapshot>(EMPTY_UPLOADS);
