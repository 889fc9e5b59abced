/**
 * Upload progress maths (spec §4 "Progress", §9): overall percentage, per-upload speed sampled
 * every second over the last 5 samples and smoothed (0.2 new, 0.8 old), overall speed, ETA.
 */

/** Speed samples are taken this often. */
export const SPEED_SAMPLE_MS = 1000;
/** The moving average spans this many samples. */
export const SPEED_SAMPLES = 5;
/** Weight of the newest moving average in the smoothed speed. */
export const SPEED_ALPHA = 0.2;
/** A megabyte (spec §9). */
export const MB = 1048576;

/** The speed state of one upload. */
export interface SpeedState {
  /** Bytes sent at the last sample. */
  lastBytes: number;
  /** Time of the last sample (ms). */
  lastTime: number;
  /** The last (at most 5) instantaneous speeds, MB/s. */
  recent: number[];
  /** Smoothed speed, MB/s. */
  speed: number;
}

export function startSpeed(bytes: number, now: number): SpeedState {
  return { lastBytes: bytes, lastTime: now, recent: [], speed: 0 };
}

/** Takes one sample: the speed since the last one joins the window; the smoothed speed moves 20 % towards the window's mean. */
export function sampleSpeed(s: SpeedState, bytes: number, now: number): SpeedState {
  const seconds = (now - s.lastTime) / 1000;
  if (seconds <= 0) return s;
  const current = Math.max(0, bytes - s.lastBytes) / MB / seconds;
  const recent = [...s.recent, current].slice(-SPEED_SAMPLES);
  const mean = recent.reduce((a, b) => a + b, 0) / recent.length;
  return { lastBytes: bytes, lastTime: now, recent, speed: (1 - SPEED_ALPHA) * s.speed + SPEED_ALPHA * mean };
}

/** The overall speed: the average of the active uploads' speeds (MB/s); 0 with none. */
export function overallSpeed(speeds: readonly number[]): number {
  return speeds.length === 0 ? 0 : speeds.reduce((a, b) => a + b, 0) / speeds.length;
}

/** Sum of progress over sum of sizes, rounded up to a whole percentage (0–100). */
export function progressPercent(progress: readonly number[], sizes: readonly number[]): number {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= 0) return progress.length > 0 && sizes.length > 0 ? 100 : 0;
  const done = progress.reduce((a, b) => a + b, 0);
  return Math.min(100, Math.ceil((done / total) * 100));
}

/** One item's percentage; a folder counts as 100. */
export function itemPercent(loaded: number, size: number, isDir: boolean): number {
  if (isDir) return 100;
  if (size <= 0) return loaded >= size ? 100 : 0;
  return Math.min(100, Math.ceil((loaded / size) * 100));
}

/** Seconds left: remaining bytes over the speed (MB/s); Infinity when the speed is unknown. */
export function etaSeconds(remainingBytes: number, speedMBs: number): number {
  if (!(speedMBs > 0)) return Infinity;
  return Math.max(0, remainingBytes) / (speedMBs * MB);
}

/** `h:mm:ss` (hours unbounded), or `--:--:--` when unknown. */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(h)}:${two(m)}:${two(sec)}`;
}
