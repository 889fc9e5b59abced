/** The trash's wire contract (GET /api/trash; docs/trash.md). */

/** One item in the caller's trash. */
export interface TrashItem {
  /** Opaque id: POST /api/trash/{id}?action=restore, DELETE /api/trash/{id}. */
  id: string;
  /** The name it had (names that are not UTF-8 carry `\xHH` escapes, like listings). */
  name: string;
  /** Where it was, inside the user's scope ('' when fm lost its record: restored at the top as `name`). */
  path: string;
  /** When it was deleted (ISO 8601). */
  deleted: string;
  /** Bytes (a folder: everything in it). */
  size: number;
  isDir: boolean;
}
