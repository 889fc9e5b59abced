/** Resumable uploads: the service and how it is built for one instance. */
import type { Gate } from '../files/gate.ts';
import type { ServiceOptions, Services } from '../index.ts';
import { diskSpaceFromEnv } from './disk.ts';
import { UploadService } from './service.ts';
import { Staging, chooseStagingDir } from './staging.ts';

export { UploadService, type UploadStatus } from './service.ts';

/**
 * The upload service of an instance. Its staging folder is protected by the gate; its sweeper
 * starts now and stops with the other services (`closers`). `services` is read lazily (the
 * hook runner may be replaced after start-up).
 */
export function createUploads(options: ServiceOptions, gate: Gate, closers: Services['closers'], services: () => Services): UploadService {
  const staging = new Staging(chooseStagingDir(options.root, options.dataDir));
  gate.protect(staging.dir);
  const uploads = new UploadService(services, staging, diskSpaceFromEnv());
  uploads.start();
  closers.push(() => uploads.close());
  return uploads;
}
