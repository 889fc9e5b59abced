/** Retry delays of chunked uploads (spec §9): 0, then 1000 ms, doubling up to 20000 ms. */

export const FIRST_RETRY_MS = 1000;
export const MAX_RETRY_MS = 20000;

/** One delay per allowed retry (`retryCount` of them); none when the count is below 1. */
export function retryDelays(retryCount: number): number[] {
  const n = Number.isFinite(retryCount) ? Math.floor(retryCount) : 0;
  const delays: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === 0) delays.push(0);
    else delays.push(Math.min(MAX_RETRY_MS, delays[i - 1] === 0 ? FIRST_RETRY_MS : delays[i - 1] * 2));
  }
  return delays;
}
