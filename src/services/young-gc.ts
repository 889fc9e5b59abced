/**
 * Young collections paced by the bytes uploads receive (tus, and every body streamed into a file:
 * PUT and POST /api/resources, WebDAV's PUT). Node's HTTP parser hands each 64 KiB
 * piece of a body over in a new Buffer whose backing store counts against the old generation's
 * room (external memory) until a young collection frees it, and V8 starts one for them only once
 * 32 MB have piled up (twice its largest semi-space): more than a small heap's room, so marking
 * starts again and again (docs/decisions.md, "Performance: tus uploads, in the full bench" and
 * "…, the machine's ceiling"). A young collection every COLLECT_EVERY bytes keeps the pile small.
 * `gc` comes from a context made after the boot set `--expose-gc` (boot/heap.ts); where it was
 * not set (tests importing this module) there is none and this does nothing.
 */
import vm from 'node:vm';

/** Bytes received between young collections. */
const COLLECT_EVERY = 8 * 1024 * 1024;

type Gc = (opts: { type: 'minor' }) => void;
let gc: Gc | null | undefined;
let received = 0;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      gc = vm.runInNewContext('typeof gc === "function" ? gc : null') as Gc | null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** Counts `bytes` received; every COLLECT_EVERY bytes, runs a young collection. */
export function receivedBytes(bytes: number): void {
  received += bytes;
  if (received < COLLECT_EVERY) return;
  received = 0;
  collector()?.({ type: 'minor' });
}
