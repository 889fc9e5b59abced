/**
 * Where uploads meet existing names (spec §4 "Conflicts"): the upload conflict prompt before an
 * upload starts, and again for a file whose name was taken between the check and the upload.
 */
import { joinPath, parentPath } from '../lib/paths.ts';
import { clashRenames, planUpload, renamedPath, renamePicked, topLevelNames, uniqueName, type PickedFile } from '../lib/uploads.ts';
import type { UploadEntry, UploadHost } from './uploadTypes.ts';

/** The manager's side that these need: queueing entries. */
export interface UploadQueue {
  start(entries: readonly UploadEntry[]): void;
}

/** A name taken between the check and the upload: Replace overwrites, Continue picks a free name. */
export function askConflict(queue: UploadQueue, host: UploadHost, job: { path: string; name: string; file?: File }): void {
  host.askReplace(async (choice) => {
    if (choice === 'overwrite') {
      queue.start([{ path: job.path, file: job.file, isDir: false, overwrite: true }]);
      return;
    }
    const dir = parentPath(job.path);
    const taken = await host.existingNames(dir);
    queue.start([{ path: joinPath(dir, uniqueName(job.name, taken, false)), file: job.file, isDir: false, overwrite: false }]);
  });
}

/**
 * Uploads picked or dropped files (and empty folders) into `dir`. When a top-level name exists
 * there, the upload conflict prompt asks: Replace overwrites, Continue renames the new entries.
 */
export async function uploadInto(queue: UploadQueue, host: UploadHost, dir: string, picked: PickedFile[], emptyDirs: string[]): Promise<void> {
  if (picked.length === 0 && emptyDirs.length === 0) return;
  let taken: Set<string>;
  try {
    taken = await host.existingNames(dir);
  } catch (err) {
    host.notify.showError(err);
    return;
  }
  const names = topLevelNames(picked, emptyDirs);
  const clashing = names.filter((n) => taken.has(n));
  const go = (overwrite: boolean, rename: ReadonlyMap<string, string>) => {
    const plan = planUpload(
      dir,
      renamePicked(picked, rename),
      emptyDirs.map((d) => renamedPath(d, rename)),
    );
    queue.start([
      ...plan.dirs.map((path) => ({ path, isDir: true, overwrite })),
      ...plan.files.map((f) => ({ path: f.path, file: f.file, isDir: false, overwrite })),
    ]);
  };
  if (clashing.length === 0) {
    go(false, new Map());
    return;
  }
  host.askReplace(async (choice) => {
    if (choice === 'overwrite') {
      go(true, new Map());
      return;
    }
    go(false, clashRenames(clashing, new Set([...taken, ...names]), picked, emptyDirs));
  });
}
