/** Resumable uploads: the service and how it is built for one instance. */
import type { Gate } from '../files/gate.ts';
import type { ServiceOptions, Services } from '../index.ts';
import { diskSpaceFromEnv } from './disk.ts';
import { UploadService } from './service.ts';
import { Staging, chooseStagingDir } from './staging.ts';

export { UploadService, type UploadStatus } from './service.ts';

/**
 * The upload service of an instance; its staging folder is protected by the gate. Nothing runs
 * in the background until `start()` (called by `fm serve`; the admin CLI builds the same
 * services with no root). `services` is read lazily (hooks and events are used per upload).
 */
export function createUploads(options: ServiceOptions, gate: Gate, closers: Services['closers'], services: () => Services): UploadService {
  const staging = new Staging(options.root ? chooseStagingDir(options.root, options.dataDir) : '');
  if (options.root) gate.protect(staging.dir);
  const uploads = new UploadService(services, staging, diskSpaceFromEnv());
  closers.push(() => uploads.close());
  return uploads;
}
