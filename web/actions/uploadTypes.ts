/** The upload manager's public shapes (what it uploads, what the panel shows, what it needs from the app) and the panel's figures. */
import type { Upload as TusUpload } from 'tus-js-client';
import { etaSeconds, itemPercent, overallSpeed, progressPercent, type SpeedState } from '../lib/uploadProgress.ts';
import type { UploadType } from '../lib/uploads.ts';
import type { ConflictChoice } from '../state/prompts.ts';
import type { Notifier } from './notify.ts';

/** One file or folder to upload. */
export interface UploadEntry {
  path: string;
  file?: File;
  isDir: boolean;
  overwrite: boolean;
}

/** One active upload as the panel shows it (spec §3 "Upload panel item"). */
export interface UploadPanelItem {
  id: number;
  name: string;
  isDir: boolean;
  type: UploadType;
  /** 0–100; a folder counts as 100. */
  progress: number;
  /** The connection was lost: it goes on when the connection is back. */
  waiting?: boolean;
}

/** What the upload panel shows (spec §3 "Upload state"). */
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
  /** Paused by the user: nothing is sent until resumed. */
  paused?: boolean;
  /** Some upload lost the connection and waits for it. */
  waiting?: boolean;
  /** Finished with this many failed entries (the panel offers Retry). */
  failed?: number;
}

export const EMPTY_UPLOADS: UploadSnapshot = { items: [], count: 0, percent: 0, speed: 0, eta: Infinity };

/** What the manager needs from the app around it. */
export interface UploadHost {
  /** The current token (it may be renewed during a long upload). */
  token(): string;
  notify: Notifier;
  /** Shows the upload conflict prompt (Cancel, Continue, Replace). */
  askReplace(onChoose: (choice: ConflictChoice) => Promise<void>): void;
  /** Names in a folder (from the listing on screen when it is that folder). */
  existingNames(dir: string): Promise<Set<string>>;
  /** Uploads finished or were aborted: listings are stale. */
  filesChanged(): void;
}

/** One queued or running upload inside the manager. */
export interface Job extends UploadEntry {
  id: number;
  /** Files wait until the folders of their batch exist. */
  batch: number;
  /** Jobs of an aborted session are ignored when they settle. */
  session: number;
  name: string;
  type: UploadType;
  size: number;
  loaded: number;
  tus?: TusUpload;
  controller?: AbortController;
  speed?: SpeedState;
  sampler?: ReturnType<typeof setInterval>;
  /** Waits for the connection to come back. */
  waiting?: boolean;
  /** Cancelled on its own (the panel's per-upload cancel). */
  cancelled?: boolean;
}

/** What the snapshot reads of a job. */
export interface MeasuredJob extends Omit<UploadPanelItem, 'progress'> {
  size: number;
  loaded: number;
  speed?: SpeedState;
}

/** The panel's figures for the `active` jobs, the queue, and every job since the last reset (`all`). */
export function measure(active: readonly MeasuredJob[], queued: number, all: readonly MeasuredJob[], paused: boolean): UploadSnapshot {
  const speed = overallSpeed(active.filter((j) => !j.isDir && j.speed).map((j) => j.speed!.speed));
  const total = all.reduce((n, j) => n + j.size, 0);
  const loaded = all.reduce((n, j) => n + j.loaded, 0);
  return {
    items: active.map((j) => ({
      id: j.id,
      name: j.name,
      isDir: j.isDir,
      type: j.type,
      progress: itemPercent(j.loaded, j.size, j.isDir),
      waiting: j.waiting === true,
    })),
    count: active.length + queued,
    percent: progressPercent(
      all.map((j) => j.loaded),
      all.map((j) => j.size),
    ),
    speed,
    eta: etaSeconds(total - loaded, speed),
    paused,
    waiting: active.some((j) => j.waiting),
  };
}
