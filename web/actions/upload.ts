/**
 * The upload manager (spec §4 "Uploads", "Each upload", "Progress", §5, §8 "Chunk retry", §9):
 * jobs queue and run at most 5 at once; folders are created with POST /api/resources/{dir}/,
 * files go through tus (tus-js-client, loaded on first use) to /api/tus/{path}. A leave-page
 * warning stands while anything uploads; at the end a success notice and a listing reload.
 */
import type { DetailedError, Upload as TusUpload } from 'tus-js-client';
import * as resources from '../api/resources.ts';
import { ConflictError, request } from '../api/client.ts';
import { withBase } from '../config.ts';
import { i18n } from '../i18n/index.ts';
import { DEFAULT_CHUNK_SIZE } from '../lib/chunkSize.ts';
import { encodePath, joinPath, parentPath, baseName, samePath } from '../lib/paths.ts';
import { retryDelays } from '../lib/retry.ts';
import { etaSeconds, itemPercent, overallSpeed, progressPercent, sampleSpeed, SPEED_SAMPLE_MS, startSpeed, type SpeedState } from '../lib/uploadProgress.ts';
import { MAX_CONCURRENT_UPLOADS, planUpload, renameTop, topLevelNames, uniqueName, uploadType, type PickedFile, type UploadType } from '../lib/uploads.ts';
import { tokenAtom } from '../state/auth.ts';
import { listingAtom, requestReloadAtom } from '../state/files.ts';
import { showPromptAtom } from '../state/prompts.ts';
import { store } from '../state/store.ts';
import { EMPTY_UPLOADS, uploadAtom } from '../state/upload.ts';
import { showError, showSuccess } from './notify.ts';

/** One file or folder to upload. */
export interface UploadEntry {
  path: string;
  file?: File;
  isDir: boolean;
  overwrite: boolean;
}

interface Job extends UploadEntry {
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
}

const PUBLISH_MS = 100;
/** The finished panel (100 %) stays this long before it goes. */
export const DONE_HOLD_MS = 1000;

let nextId = 1;
let nextBatch = 1;
let session = 1;
const queue: Job[] = [];
const active = new Set<Job>();
/** Every job since the last reset, for the overall percentage. */
let all: Job[] = [];
let failed = false;
let publishTimer: ReturnType<typeof setTimeout> | undefined;
let doneTimer: ReturnType<typeof setTimeout> | undefined;

function beforeUnload(e: BeforeUnloadEvent): void {
  e.preventDefault();
  // Older browsers show the warning only with a returnValue.
  e.returnValue = '';
}

/** True while anything is queued or uploading. */
export function isUploading(): boolean {
  return queue.length > 0 || active.size > 0;
}

function snapshot() {
  const act = [...active];
  const speed = overallSpeed(act.filter((j) => !j.isDir && j.speed).map((j) => j.speed!.speed));
  const total = all.reduce((n, j) => n + j.size, 0);
  const loaded = all.reduce((n, j) => n + j.loaded, 0);
  return {
    items: act.map((j) => ({ id: j.id, name: j.name, isDir: j.isDir, type: j.type, progress: itemPercent(j.loaded, j.size, j.isDir) })),
    count: act.length + queue.length,
    percent: progressPercent(
      all.map((j) => j.loaded),
      all.map((j) => j.size),
    ),
    speed,
    eta: etaSeconds(total - loaded, speed),
  };
}

function publishNow(): void {
  clearTimeout(publishTimer);
  publishTimer = undefined;
  store.set(uploadAtom, isUploading() ? snapshot() : EMPTY_UPLOADS);
}

/** Progress events come fast: the panel follows at most every 100 ms. */
function publishSoon(): void {
  publishTimer ??= setTimeout(publishNow, PUBLISH_MS);
}

function reset(): void {
  clearTimeout(doneTimer);
  doneTimer = undefined;
  for (const j of all) clearInterval(j.sampler);
  queue.length = 0;
  active.clear();
  all = [];
  failed = false;
  window.removeEventListener('beforeunload', beforeUnload);
  publishNow();
}

/** Queues entries (folders before the files inside them) and starts what may start. */
export function enqueue(entries: readonly UploadEntry[]): void {
  if (entries.length === 0) return;
  if (!isUploading()) {
    window.addEventListener('beforeunload', beforeUnload);
    clearTimeout(doneTimer);
    doneTimer = undefined;
  }
  const batch = nextBatch++;
  for (const e of entries) {
    const job: Job = {
      ...e,
      id: nextId++,
      batch,
      session,
      name: baseName(e.path),
      type: e.isDir ? 'blob' : uploadType(e.file?.type ?? ''),
      size: e.isDir ? 0 : (e.file?.size ?? 0),
      loaded: 0,
    };
    queue.push(job);
    all.push(job);
  }
  process();
}

function dirsPending(batch: number): boolean {
  return queue.some((j) => j.batch === batch && j.isDir) || [...active].some((j) => j.batch === batch && j.isDir);
}

function process(): void {
  while (active.size < MAX_CONCURRENT_UPLOADS) {
    const i = queue.findIndex((j) => j.isDir || !dirsPending(j.batch));
    if (i < 0) break;
    const [job] = queue.splice(i, 1);
    active.add(job);
    void run(job);
  }
  publishNow();
}

async function run(job: Job): Promise<void> {
  let conflict = false;
  try {
    if (job.isDir) await resources.createDir(job.path);
    else await uploadFile(job);
  } catch (err) {
    if (job.session !== session) return;
    if (err instanceof ConflictError && !job.isDir) conflict = true;
    else {
      failed = true;
      showError(new Error(i18n.t('upload.failed', { cause: `${job.name}: ${causeOf(err)}` })));
    }
  }
  if (job.session !== session) return;
  clearInterval(job.sampler);
  job.loaded = job.size;
  active.delete(job);
  if (conflict) {
    failed = true;
    askConflict(job);
  }
  process();
  if (!isUploading()) complete();
}

function complete(): void {
  const ok = !failed;
  reset();
  store.set(uploadAtom, { ...EMPTY_UPLOADS, percent: 100, eta: 0, done: true });
  doneTimer = setTimeout(() => {
    doneTimer = undefined;
    if (!isUploading()) store.set(uploadAtom, EMPTY_UPLOADS);
  }, DONE_HOLD_MS);
  if (ok) showSuccess(i18n.t('upload.done'));
  store.set(requestReloadAtom);
}

/** Cancels every upload (after the panel's confirmation): partial uploads are terminated on the server. */
export function abortAll(): void {
  session++;
  for (const j of active) {
    j.controller?.abort();
    void j.tus?.abort(true).catch(() => undefined);
    clearInterval(j.sampler);
  }
  reset();
  store.set(requestReloadAtom);
}

/** The short cause of a failure: the server's answer when there is one. */
function causeOf(err: unknown): string {
  const detailed = err as Partial<DetailedError>;
  const res = detailed.originalResponse;
  if (res) {
    const body = (res.getBody() ?? '').trim();
    return body || `${res.getStatus()}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function onProgress(job: Job, sent: number): void {
  job.loaded = sent;
  if (!job.speed) {
    job.speed = startSpeed(0, Date.now());
    job.sampler = setInterval(() => {
      job.speed = sampleSpeed(job.speed!, job.loaded, Date.now());
      publishSoon();
    }, SPEED_SAMPLE_MS);
  }
  publishSoon();
}

/** Create the upload (201 expected), then tus-js-client checks the offset and sends the chunks. */
async function uploadFile(job: Job): Promise<void> {
  const tusSettings = window.FM?.TusSettings;
  if (!tusSettings) throw new Error('Tus.io settings are not defined');
  const file = job.file!;
  job.controller = new AbortController();
  const createPath = `/api/tus${encodePath(job.path)}?override=${job.overwrite}`;
  const res = await request(createPath, {
    method: 'POST',
    headers: { 'Upload-Length': String(file.size), 'Tus-Resumable': '1.0.0' },
    signal: job.controller.signal,
  });
  if (res.status !== 201) throw new Error(`Failed to create an upload: ${res.status} ${res.statusText}`);
  // An empty file is complete at its creation.
  if (file.size === 0) return;
  const base = window.location.href;
  const location = new URL(res.headers.get('Location') || withBase(`/api/tus${encodePath(job.path)}`), base).href;
  const { Upload } = await import('tus-js-client');
  if (job.session !== session) return;
  await new Promise<void>((resolve, reject) => {
    const upload = new Upload(file, {
      uploadUrl: location,
      // When the upload URL is gone (404 on HEAD), tus-js-client creates a new upload here.
      endpoint: new URL(withBase(createPath), base).href,
      chunkSize: tusSettings.chunkSize > 0 ? tusSettings.chunkSize : DEFAULT_CHUNK_SIZE,
      retryDelays: retryDelays(tusSettings.retryCount),
      parallelUploads: 1,
      storeFingerprintForResuming: false,
      metadata: { filename: job.name, filetype: file.type },
      // The token may be renewed during a long upload: read it for every request.
      onBeforeRequest: (req) => {
        const token = store.get(tokenAtom);
        if (token) req.setHeader('X-Auth', token);
      },
      onProgress: (sent) => onProgress(job, sent),
      onSuccess: () => resolve(),
      onError: (err) => reject(err),
    });
    job.tus = upload;
    upload.start();
  });
}

/** A name taken between the check and the upload: the upload conflict prompt for that file. */
function askConflict(job: Job): void {
  store.set(showPromptAtom, {
    name: 'replace',
    props: {
      onChoose: async (choice: 'rename' | 'overwrite') => {
        if (choice === 'overwrite') {
          enqueue([{ path: job.path, file: job.file, isDir: false, overwrite: true }]);
          return;
        }
        const dir = parentPath(job.path);
        const taken = await existingNames(dir);
        enqueue([{ path: joinPath(dir, uniqueName(job.name, taken, false)), file: job.file, isDir: false, overwrite: false }]);
      },
    },
  });
}

/** Names in a folder: from the listing on screen when it is that folder, else from the server. */
async function existingNames(dir: string): Promise<Set<string>> {
  const listing = store.get(listingAtom);
  if (listing && listing.resource.isDir && samePath(listing.resource.path, dir)) return new Set(listing.items.map((i) => i.name));
  const res = await resources.get(dir);
  return new Set((res.items ?? []).map((i) => i.name));
}

/**
 * Uploads picked or dropped files (and empty folders) into `dir`. When a top-level name exists
 * there, the upload conflict prompt asks: Replace overwrites, Continue renames the new entries.
 */
export async function uploadInto(dir: string, picked: PickedFile[], emptyDirs: string[] = []): Promise<void> {
  if (picked.length === 0 && emptyDirs.length === 0) return;
  let taken: Set<string>;
  try {
    taken = await existingNames(dir);
  } catch (err) {
    showError(err);
    return;
  }
  const names = topLevelNames(picked, emptyDirs);
  const clashing = names.filter((n) => taken.has(n));
  const go = (overwrite: boolean, rename: Map<string, string>) => {
    const map = (rel: string) => {
      const top = rel.split('/').filter(Boolean)[0] ?? '';
      const to = rename.get(top);
      return to ? renameTop(rel, top, to) : rel;
    };
    const plan = planUpload(
      dir,
      picked.map((p) => ({ file: p.file, relativePath: map(p.relativePath) })),
      emptyDirs.map(map),
    );
    enqueue([
      ...plan.dirs.map((path) => ({ path, isDir: true, overwrite })),
      ...plan.files.map((f) => ({ path: f.path, file: f.file, isDir: false, overwrite })),
    ]);
  };
  if (clashing.length === 0) {
    go(false, new Map());
    return;
  }
  const isDirName = (n: string) => emptyDirs.some((d) => d.split('/').filter(Boolean)[0] === n) || picked.some((p) => p.relativePath.split('/').filter(Boolean).length > 1 && p.relativePath.split('/').filter(Boolean)[0] === n);
  store.set(showPromptAtom, {
    name: 'replace',
    props: {
      onChoose: async (choice: 'rename' | 'overwrite') => {
        if (choice === 'overwrite') {
          go(true, new Map());
          return;
        }
        const used = new Set([...taken, ...names]);
        const rename = new Map<string, string>();
        for (const n of clashing) {
          const fresh = uniqueName(n, used, isDirName(n));
          used.add(fresh);
          rename.set(n, fresh);
        }
        go(false, rename);
      },
    },
  });
}
