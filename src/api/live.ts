/**
 * Live listings (`GET /api/events/{path}`, Server-Sent Events): what each event carries.
 * `ready` opens the stream; `change` brings the entries of the folder that were created or
 * changed, as the listing shows them, and the names that are gone; `reset` asks for a refetch
 * (too many changes at once, or changes the server cannot name).
 */
import type { FileInfoDto } from './files.ts';

export type LiveEventName = 'ready' | 'change' | 'reset';

export interface LiveChangeDto {
  /** Entries new or changed, the same objects as the listing's items. A rename is the old name in `removed` and the new one here. */
  items: FileInfoDto[];
  /** Names no longer in the folder (or no longer shown). */
  removed: string[];
}
