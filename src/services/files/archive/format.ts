/**
 * The archive format of a raw folder download, checked as the server needs it. The formats
 * themselves (names, extensions, content types) are the contract's (src/api/files.ts); this stays
 * apart from index.ts so that the server can start without loading the archivers.
 */
import { ARCHIVE_ALGOS, parseArchiveAlgo, type ArchiveAlgo } from '../../../api/files.ts';
import { BadRequestError } from '../../../errors.ts';

/** `algo` as sent by clients: empty, `true` and `zip` mean zip; anything unknown is 400. */
export function checkArchiveAlgo(raw: string | undefined): ArchiveAlgo {
  const algo = parseArchiveAlgo(raw);
  if (algo === undefined) throw new BadRequestError(`unknown archive format "${raw}" (use ${ARCHIVE_ALGOS.join(', ')})`);
  return algo;
}
