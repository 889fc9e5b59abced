/**
 * Alternating rounds of a baseline and fm that write the same bytes to the same disk (the tus
 * rows of issue 14): B F B F … F B, each fm round paired with the baseline rounds on either side.
 *
 * Every round of either side starts in the same state: the previous round's files deleted, the
 * machine's dirty pages written back (`settle`), then one unmeasured baseline write of the same
 * bytes, deleted just before the round starts. What a round writes into depends on what freed
 * the memory before it, on this virtual machine by 2-3x (docs/decisions.md, "Performance: tus
 * uploads, steadier"): the guest hands memory free for ~2 s back to the host (virtio balloon free
 * page reporting), where it faults in again on its next use (1 GiB written into the page cache in
 * 0.2 s into just-freed pages, 1.5-3.6 s into pages freed 4 s before), and the baseline ran
 * 1,100-1,700 MB/s after a baseline round but 360-810 MB/s after an upload round, whose freed
 * pages are scattered among the socket's. Without the reset step, B F B F made each side start
 * from the other's leftovers.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { median } from './lib.ts';

/** What one round did: its MB/s, and the files to delete before the next round. */
export interface RoundResult {
  mbps: number;
  files: string[];
}

export interface AlternatingResult {
  /** rounds + 1 baseline rounds and `rounds` fm rounds, in the order they ran (B F B F … B). */
  baseline: number[];
  fm: number[];
  /** fm round i over the mean of baseline rounds i and i + 1. */
  ratios: number[];
  ratio: number;
  /** 1-minute load average before and after. */
  load: [number, number];
}

/** Wait at most this long (sync included) for the kernel's dirty and writeback pages to drain. */
const SETTLE_LIMIT_MS = 10_000;
/** Drained: less than this much dirty or under writeback, machine-wide. */
const SETTLED_BYTES = 32 * 1024 * 1024;

/** Bytes dirty or under writeback, machine-wide (0 without /proc: not Linux). */
function pendingWriteback(): number {
  if (!fs.existsSync('/proc/meminfo')) return 0;
  const info = fs.readFileSync('/proc/meminfo', 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? 0);
  return (kb('Dirty') + kb('Writeback')) * 1024;
}

/** Writes back every dirty page (others' too), waits for it, then deletes `stale`. */
export async function settle(stale: string[]): Promise<void> {
  const until = performance.now() + SETTLE_LIMIT_MS;
  spawnSync('sync', { timeout: SETTLE_LIMIT_MS });
  while (pendingWriteback() > SETTLED_BYTES && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
  for (const f of stale) fs.rmSync(f, { force: true });
}

/**
 * `rounds` fm rounds between rounds + 1 baseline rounds, each round after an unmeasured baseline round.
 * `log` gets every round's figure.
 */
export async function alternate(
  rounds: number,
  baseline: () => Promise<RoundResult>,
  fm: () => Promise<RoundResult>,
  log: (line: string) => void = () => {},
): Promise<AlternatingResult> {
  const loadBefore = os.loadavg()[0];
  let stale: string[] = [];
  const run = async (side: () => Promise<RoundResult>) => {
    await settle(stale);
    // The same unmeasured write before every round of either side, deleted just before it.
    const reset = await baseline();
    await settle(reset.files);
    const r = await side();
    stale = r.files;
    return r.mbps;
  };
  const b: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < rounds; i++) {
    b.push(await run(baseline));
    log(`  baseline ${b[i].toFixed(0)} MB/s`);
    f.push(await run(fm));
    log(`  fm ${f[i].toFixed(0)} MB/s`);
  }
  b.push(await run(baseline));
  log(`  baseline ${b[rounds].toFixed(0)} MB/s`);
  await settle(stale);
  const ratios = pairedRatios(f, b);
  return { baseline: b, fm: f, ratios, ratio: median(ratios), load: [loadBefore, os.loadavg()[0]] };
}

/** Each fm round over the mean of the baseline rounds just before and just after it. */
export function pairedRatios(fm: number[], baseline: number[]): number[] {
  if (baseline.length !== fm.length + 1) throw new Error('one baseline round before each fm round and one after the last');
  return fm.map((x, i) => x / ((baseline[i] + baseline[i + 1]) / 2));
}
