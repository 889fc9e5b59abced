/**
 * A patched folder's names in ascending order (folder-names.ts `patchedFolder`), held in blocks
 * of about BLOCK entries with the rank each block starts at. A patch is copy on write per block:
 * the blocks its edits touch are copied, the others shared with the previous version, so a
 * create or delete in a folder of 100,000 names copies ~1,000 names and the block index instead
 * of every name (docs/decisions.md, "Performance: the first page during creates, to 3×"). A
 * version is never changed once made: a request still reading an older one sees it whole.
 * Names are fm's string form (disk/names.ts); the bytes of one that is not UTF-8 are made from it.
 */

/** A block is split when a patch makes it longer than twice this, and merged with its neighbour when shorter than a quarter. */
export const BLOCK = 1024;

interface Block {
  names: string[];
  kinds: Uint8Array;
}

/** A patch in old ranks, both ascending: old ranks removed, and entries inserted before old rank `insertedAt[k]` (in that order). */
export interface RankEdits {
  removed: readonly number[];
  insertedAt: readonly number[];
  inserted: ReadonlyArray<{ name: string; kind: number }>;
}

export class NameBlocks {
  private constructor(
    private readonly blocks: readonly Block[],
    /** The rank each block starts at, and the total last (blocks.length + 1 numbers). */
    private readonly starts: Uint32Array,
  ) {}

  /** Entries `order[0]`, `order[1]`, … of the parallel arrays `names` and `kinds`, in blocks. */
  static inOrder(names: readonly string[], kinds: ArrayLike<number>, order: ArrayLike<number>): NameBlocks {
    const blocks: Block[] = [];
    for (let from = 0; from < order.length; from += BLOCK) {
      const to = Math.min(order.length, from + BLOCK);
      const block: Block = { names: new Array(to - from), kinds: new Uint8Array(to - from) };
      for (let r = from; r < to; r++) {
        block.names[r - from] = names[order[r]];
        block.kinds[r - from] = kinds[order[r]];
      }
      blocks.push(block);
    }
    return new NameBlocks(blocks, startsOf(blocks));
  }

  get length(): number {
    return this.starts[this.blocks.length];
  }

  name(rank: number): string {
    const b = this.blockOf(rank);
    return this.blocks[b].names[rank - this.starts[b]];
  }

  kind(rank: number): number {
    const b = this.blockOf(rank);
    return this.blocks[b].kinds[rank - this.starts[b]];
  }

  /** Every name and kind in rank order, as parallel arrays (a full listing's). */
  toArrays(): { names: string[]; kinds: Uint8Array } {
    const names: string[] = new Array(this.length);
    const kinds = new Uint8Array(this.length);
    for (let b = 0; b < this.blocks.length; b++) {
      const { names: bn, kinds: bk } = this.blocks[b];
      const at = this.starts[b];
      for (let j = 0; j < bn.length; j++) names[at + j] = bn[j];
      kinds.set(bk, at);
    }
    return { names, kinds };
  }

  /** This version with `edits` applied: the blocks they touch copied (split or merged when they grow or shrink too far), the others shared. */
  patched(edits: RankEdits): NameBlocks {
    const { removed, insertedAt, inserted } = edits;
    const out: Block[] = [];
    const last = this.blocks.length - 1;
    let ri = 0;
    let ii = 0;
    for (let b = 0; b <= last || (b === 0 && ii < inserted.length); b++) {
      const block = this.blocks[b] ?? { names: [], kinds: new Uint8Array(0) };
      const start = this.starts[b] ?? 0;
      const end = b >= last ? Number.POSITIVE_INFINITY : this.starts[b + 1]; // insertions past the end go to the last block
      const blockEnd = start + block.names.length;
      if ((ri >= removed.length || removed[ri] >= blockEnd) && (ii >= insertedAt.length || insertedAt[ii] >= end)) {
        out.push(block);
        continue;
      }
      const names: string[] = [];
      const kinds: number[] = [];
      for (let r = start; r <= blockEnd; r++) {
        while (ii < insertedAt.length && insertedAt[ii] === r) {
          names.push(inserted[ii].name);
          kinds.push(inserted[ii].kind);
          ii++;
        }
        if (r === blockEnd) break;
        if (ri < removed.length && removed[ri] === r) {
          ri++;
          continue;
        }
        names.push(block.names[r - start]);
        kinds.push(block.kinds[r - start]);
      }
      place(out, names, kinds);
    }
    return new NameBlocks(out, startsOf(out));
  }

  private blockOf(rank: number): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= rank) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** Appends a patched block's entries to `out`: dropped when empty, merged into the block before when small, split when long. */
function place(out: Block[], names: string[], kinds: number[]): void {
  if (names.length === 0) return;
  const before = out[out.length - 1];
  if (names.length < BLOCK / 4 && before && before.names.length + names.length <= BLOCK) {
    out[out.length - 1] = { names: before.names.concat(names), kinds: Uint8Array.from([...before.kinds, ...kinds]) };
    return;
  }
  if (names.length <= 2 * BLOCK) {
    out.push({ names, kinds: Uint8Array.from(kinds) });
    return;
  }
  for (let from = 0; from < names.length; from += BLOCK) {
    out.push({ names: names.slice(from, from + BLOCK), kinds: Uint8Array.from(kinds.slice(from, from + BLOCK)) });
  }
}

function startsOf(blocks: readonly Block[]): Uint32Array {
  const starts = new Uint32Array(blocks.length + 1);
  for (let b = 0; b < blocks.length; b++) starts[b + 1] = starts[b] + blocks[b].names.length;
  return starts;
}
