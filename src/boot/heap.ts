/**
 * Two V8 flags for a small heap that receives a lot of bytes. fm's heap is ~15 MB, so the old
 * generation's limit leaves it ~16 MB of room, and the backing stores of the socket's 64 KiB reads
 * count against that room (external memory) until a young collection frees them, which V8 starts
 * only every 32 MB of them. During an upload V8 then often started a mark-compact every 20-30 ms,
 * ~0.9 s more CPU per GiB, in some server processes and not others (docs/decisions.md,
 * "Performance: tus uploads, in the full bench"):
 *  - freed backing stores are given back during the young collection itself, not by a background
 *    task after it, so the limit check that follows the collection no longer sees them;
 *  - marking starts once 90 % of the room is used, at once past 99 %, instead of as soon as the
 *    room left is no larger than the young generation (16 MB: at once, for a heap this small).
 *    For a large heap (the search index's) 90 % is about where the default rule starts it.
 * And `--expose-gc`, for services/young-gc.ts: a young collection every 8 MiB an upload
 * receives keeps those backing stores from piling up at all (the `gc` function lives only in the
 * context that module makes, not in fm's).
 * Set before the bundle is compiled: V8 accepts a code cache only under the flags it was made with.
 */
import v8 from 'node:v8';

export function tuneGcForStreaming(): void {
  v8.setFlagsFromString('--no-concurrent-array-buffer-sweeping');
  v8.setFlagsFromString('--incremental-marking-soft-trigger=90');
  v8.setFlagsFromString('--incremental-marking-hard-trigger=99');
  v8.setFlagsFromString('--expose-gc');
}
