/**
 * V8's memory reducer, once the process has been idle a moment, shrinks a small heap's limits
 * (fm's is ~17 MB). An upload that starts after such a pause moves a GiB of socket Buffers whose
 * backing stores count against those limits, and V8 then ran a mark-compact every 20-30 ms for
 * the whole upload: ~1 s more CPU per GiB (docs/decisions.md, "Performance: tus uploads, CPU per
 * GiB"). Large heaps keep the reducer; only the small-heap case is turned off.
 */
import v8 from 'node:v8';

export function keepSmallHeapLimitsAfterIdle(): void {
  v8.setFlagsFromString('--no-memory-reducer-for-small-heaps');
}
