/**
 * The upload manager (spec §4 "Uploads", "Each upload", "Progress", §5, §8 "Chunk retry", §9):
 * jobs queue and run at most 5 at once; folders are created with POST /api/resources/{dir}/,
 * files go through tus (tus-js-client, loaded on first use) to /api/tus/{path}; one that loses the
 * connection waits for it and goes on. Each upload can be cancelled on its own. A leave-page
 * warning stands while anything uploads; at the end a success notice and a listing reload.
 * One `UploadManager` per app (no module state); the panel reads it with `useSyncExternalStore`.
 */
import * as resources from '../api/resources.ts';
import { ConflictError } from '../api/client.ts';
import { i18n } from '../i18n/index.ts';
import { baseName } from '../lib/paths.ts';
import { sampleSpeed, SPEED_SAMPLE_MS, startSpeed } from '../lib/uploadProgress.ts';
import { MAX_CONCURRENT_UPLOADS, uploadType, type PickedFile } from '../lib/uploads.ts';
import { causeOf, sendFile } from './tusUpload.ts';
import { askConflict, uploadInto } from './uploadInto.ts';
import { EMPTY_UPLOADS, type Job, measure, type UploadEntry, type UploadHost, type UploadSnapshot } from './uploadTypes.ts';

const PUBLISH_MS = 100;
/** The finished panel (100 %) stays this long before it goes. */
export const DONE_HOLD_MS = 1000;

function beforeUnload(e: BeforeUnloadEvent): void {
  e.preventDefault();
  // Older browsers show the warning only with a returnValue.
  e.returnValue = '';
}

export class UploadManager {
  private nextId = 1;
  private nextBatch = 1;
  private session = 1;
  private readonly queue: Job[] = [];
  private readonly active = new Set<Job>();
  /** Every job since the last reset, for the overall percentage. */
  private all: Job[] = [];
  private failed = false;
  private paused = false;
  /** Entries that failed (not conflicts), kept for retry() until dismissed. */
  private retryable: UploadEntry[] = [];
  private publishTimer: ReturnType<typeof setTimeout> | undefined;
  private doneTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshot: UploadSnapshot = EMPTY_UPLOADS;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly host: UploadHost) {}

  /** For useSyncExternalStore: called on every change of the snapshot. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The panel's view; the same object until something changes. */
  getSnapshot = (): UploadSnapshot => this.snapshot;

  /** True while anything is queued or uploading. */
  isUploading(): boolean {
    return this.queue.length > 0 || this.active.size > 0;
  }

  private setSnapshot(next: UploadSnapshot): void {
    this.snapshot = next;
    for (const l of this.listeners) l();
  }

  private publishNow(): void {
    clearTimeout(this.publishTimer);
    this.publishTimer = undefined;
    this.setSnapshot(this.isUploading() ? measure([...this.active], this.queue.length, this.all, this.paused) : EMPTY_UPLOADS);
  }

  /** Progress events come fast: the panel follows at most every 100 ms. */
  private publishSoon(): void {
    this.publishTimer ??= setTimeout(() => this.publishNow(), PUBLISH_MS);
  }

  private reset(): void {
    clearTimeout(this.doneTimer);
    this.doneTimer = undefined;
    for (const j of this.all) clearInterval(j.sampler);
    this.queue.length = 0;
    this.active.clear();
    this.all = [];
    this.failed = false;
    this.paused = false;
    window.removeEventListener('beforeunload', beforeUnload);
    this.publishNow();
  }

  /** Queues entries (folders before the files inside them) and starts what may start. */
  start(entries: readonly UploadEntry[]): void {
    if (entries.length === 0) return;
    if (!this.isUploading()) {
      window.addEventListener('beforeunload', beforeUnload);
      clearTimeout(this.doneTimer);
      this.doneTimer = undefined;
    }
    const batch = this.nextBatch++;
    for (const e of entries) {
      const job: Job = {
        ...e,
        id: this.nextId++,
        batch,
        session: this.session,
        name: baseName(e.path),
        type: e.isDir ? 'blob' : uploadType(e.file?.type ?? ''),
        size: e.isDir ? 0 : (e.file?.size ?? 0),
        loaded: 0,
      };
      this.queue.push(job);
      this.all.push(job);
    }
    this.pump();
  }

  private dirsPending(batch: number): boolean {
    return this.queue.some((j) => j.batch === batch && j.isDir) || [...this.active].some((j) => j.batch === batch && j.isDir);
  }

  private pump(): void {
    while (!this.paused && this.active.size < MAX_CONCURRENT_UPLOADS) {
      const i = this.queue.findIndex((j) => j.isDir || !this.dirsPending(j.batch));
      if (i < 0) break;
      const [job] = this.queue.splice(i, 1);
      this.active.add(job);
      void this.run(job);
    }
    this.publishNow();
  }

  private async run(job: Job): Promise<void> {
    let conflict = false;
    try {
      if (job.isDir) await resources.createDir(job.path);
      else await this.uploadFile(job);
    } catch (err) {
      if (job.session !== this.session) return;
      if (job.cancelled) {
        // Cancelled on its own: neither a failure nor part of the overall progress.
      } else if (err instanceof ConflictError && !job.isDir) conflict = true;
      else {
        this.failed = true;
        this.retryable.push({ path: job.path, file: job.file, isDir: job.isDir, overwrite: job.overwrite });
        this.host.notify.showError(new Error(i18n.t('upload.failed', { cause: `${job.name}: ${causeOf(err, (key) => i18n.t(key))}` })));
      }
    }
    if (job.session !== this.session) return;
    clearInterval(job.sampler);
    job.loaded = job.size;
    this.active.delete(job);
    if (job.cancelled) this.all = this.all.filter((j) => j !== job);
    if (conflict) {
      this.failed = true;
      askConflict(this, this.host, job);
    }
    this.pump();
    if (!this.isUploading()) this.complete();
  }

  private complete(): void {
    const ok = !this.failed;
    // Every upload of the session was cancelled one by one: as after Abort.
    const cancelled = this.all.length === 0;
    this.reset();
    this.host.filesChanged();
    if (cancelled && this.retryable.length === 0) {
      this.host.notify.showError(new Error(i18n.t('upload.aborted')));
      return;
    }
    // Failures keep the panel up with Retry until retried or dismissed.
    if (this.retryable.length > 0) {
      this.setSnapshot({ ...EMPTY_UPLOADS, done: true, failed: this.retryable.length });
      return;
    }
    this.setSnapshot({ ...EMPTY_UPLOADS, percent: 100, eta: 0, done: true });
    this.doneTimer = setTimeout(() => {
      this.doneTimer = undefined;
      if (!this.isUploading()) this.setSnapshot(EMPTY_UPLOADS);
    }, DONE_HOLD_MS);
    if (ok) this.host.notify.showSuccess(i18n.t('upload.done'));
  }

  /** Uploads again what failed. */
  retry(): void {
    const entries = this.retryable;
    this.retryable = [];
    this.start(entries);
  }

  /** Forgets the failures and hides the panel. */
  dismiss(): void {
    this.retryable = [];
    if (!this.isUploading()) this.setSnapshot(EMPTY_UPLOADS);
  }

  /**
   * Stops sending: running transfers stop after their current request (the server keeps what
   * arrived), queued ones wait. Folders being created finish.
   */
  pause(): void {
    if (this.paused || !this.isUploading()) return;
    this.paused = true;
    for (const j of this.active) void j.tus?.abort(false).catch(() => undefined);
    this.publishNow();
  }

  /** Sends again: each transfer asks the server for its offset and goes on from there (tus). */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    for (const j of this.active) j.tus?.start();
    this.pump();
  }

  /** Cancels every upload (after the panel's confirmation): partial uploads are terminated on the server. */
  abort(): void {
    this.session++;
    this.retryable = [];
    for (const j of this.active) {
      // The signal makes sendFile terminate the upload on the server; tus-js-client only stops.
      j.controller?.abort();
      void j.tus?.abort(false).catch(() => undefined);
      clearInterval(j.sampler);
    }
    this.reset();
    this.host.filesChanged();
    this.host.notify.showError(new Error(i18n.t('upload.aborted')));
  }

  /** Cancels one upload: a queued one is dropped; a running one stops and its partial upload is terminated on the server. */
  cancel(id: number): void {
    const queued = this.queue.findIndex((j) => j.id === id);
    if (queued >= 0) {
      const [job] = this.queue.splice(queued, 1);
      this.all = this.all.filter((j) => j !== job);
      if (!this.isUploading()) this.complete();
      else this.publishNow();
      return;
    }
    const job = [...this.active].find((j) => j.id === id);
    if (!job || job.cancelled) return;
    job.cancelled = true;
    job.controller?.abort();
    void job.tus?.abort(false).catch(() => undefined);
  }

  private onProgress(job: Job, sent: number): void {
    job.loaded = sent;
    if (!job.speed) {
      job.speed = startSpeed(0, Date.now());
      job.sampler = setInterval(() => {
        job.speed = sampleSpeed(job.speed!, job.loaded, Date.now());
        this.publishSoon();
      }, SPEED_SAMPLE_MS);
    }
    this.publishSoon();
  }

  private async uploadFile(job: Job): Promise<void> {
    job.controller = new AbortController();
    await sendFile(job, {
      signal: job.controller.signal,
      token: () => this.host.token(),
      current: () => job.session === this.session && !job.cancelled,
      started: (upload) => {
        job.tus = upload;
      },
      paused: () => this.paused,
      progress: (sent) => this.onProgress(job, sent),
      waiting: (lost) => {
        job.waiting = lost;
        this.publishNow();
      },
    });
  }

  /** Uploads picked or dropped files (and empty folders) into `dir`, asking first on a name conflict. */
  uploadInto(dir: string, picked: PickedFile[], emptyDirs: string[] = []): Promise<void> {
    return uploadInto(this, this.host, dir, picked, emptyDirs);
  }
}
