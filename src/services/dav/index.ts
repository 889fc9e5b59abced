/**
 * WebDAV state beside the files: locks (memory) and dead properties (database). Both follow
 * the file events, so a delete or a move made through any door of fm (the API, uploads, the
 * command runner, WebDAV) takes a file's properties along and drops its locks.
 */
import type { DeadPropsRepo } from '../../storage/repos/dead-props.ts';
import type { FileEvents } from '../events.ts';
import { DavLocks } from './locks.ts';

export { DavLocks } from './locks.ts';

export function createDavLocks(events: FileEvents, deadProps: DeadPropsRepo): DavLocks {
  const locks = new DavLocks();
  events.on('removed', async (e) => {
    locks.removeWithin(e.abs);
    await deadProps.removeUnder(e.abs);
  });
  events.on('moved', async (e) => {
    locks.removeWithin(e.fromAbs);
    await deadProps.moveUnder(e.fromAbs, e.toAbs);
  });
  return locks;
}
