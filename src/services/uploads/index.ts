/** Resumable uploads: the service and how it is built for one instance. */
import path from 'node:path';
import type { Gate } from '../files/gate.ts';
import { PartialJournal } from '../files/disk/partials.ts';
import type { ServiceOptions, Services } from '../index.ts';
import { statfsDiskSpace } from './disk.ts';
import { UploadService } from './service.ts';
import { STAGING_IN_ROOT, Staging, chooseStagingDir } from './staging.ts';
import type { Cluster } from '../../storage/cluster.ts';

export { UploadService, type UploadStatus } from './service.ts';

/** Folder of the temporary-file journals (disk/partials.ts) in the data folder. */
export const PARTIALS_IN_DATA = 'partials';

/**
 * The upload service of an instance; its staging folder is protected by the gate. It also
 * gives the gate the journal of temporary files that every write keeps (disk/partials.ts).
 * Nothing runs in the background until `start()` (called by `fm serve`; the admin CLI builds
 * the same services with no root). `services` is read lazily (hooks and events are used per
 * upload). With a `cluster` (PostgreSQL) staging is in the shared root and appends take a lock
 * between instances.
 */
export function createUploads(options: ServiceOptions, gate: Gate, closers: Services['closers'], services: () => Services, cluster?: Cluster): UploadService {
  // Several instances resume each other's uploads: staging is then in the root they share.
  const stagingDir = cluster ? path.join(options.root, STAGING_IN_ROOT) : chooseStagingDir(options.root, options.dataDir);
  const staging = new Staging(options.root ? stagingDir : '');
  let partials: PartialJournal | undefined;
  if (options.root) {
    gate.protect(staging.dir);
    partials = new PartialJournal(path.join(options.dataDir, PARTIALS_IN_DATA), gate.serverScope());
    gate.protect(partials.dir);
    gate.partials = partials;
  }
  const sharedLock = cluster && ((name: string) => cluster.tryLock(name));
  const uploads = new UploadService(services, staging, options.diskSpace ?? statfsDiskSpace, partials, sharedLock, options.uploadSync);
  closers.push(() => uploads.close());
  return uploads;
}
