/**
 * Reading gate targets (the primitives live in disk/): files are opened without following a
 * final link and the opened descriptor's real location is checked. Writes go through the
 * folder handles the gate hands out (`gate.openParent`) and disk/place.ts.
 */
import type { Target } from './gate.ts';
import { openFileForRead, openRealForRead } from './disk/io.ts';
import type { FileHandle } from './disk/types.ts';

/** Names of in-progress writes; listings, search and archives never show them. */
export { PARTIAL_PREFIX, isPartialName } from './disk/partials.ts';
export { openRealForRead };

/**
 * Opens a resolved file for reading. O_NONBLOCK keeps a FIFO swapped in after the gate's check
 * from blocking the server; callers that need a regular file check `fh.stat()`.
 */
export function openForRead(target: Target): Promise<FileHandle> {
  return openFileForRead(target.real, target.access.scope);
}
