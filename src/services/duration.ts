/**
 * Durations as admins type them (token lifetime, command timeout, upload expiry): `90m`, `2h`,
 * `1d`, `1.5h`, `1500ms`, or a bare number of seconds. A thin adapter over the `ms` package,
 * which does the unit arithmetic; fm keeps its own syntax (ms, s, m, h, d in any case: no weeks
 * or years, no words), and a bare number is seconds, where ms would read milliseconds.
 */
import ms from 'ms';

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;

/** Parses a duration into whole seconds (at least one); throws an Error naming the duration otherwise. */
export function parseDuration(raw: string): number {
  const m = DURATION.exec(String(raw).trim());
  if (!m) throw new Error(`invalid duration "${raw}" (use e.g. 2h, 30m, 3600)`);
  const millis = m[2] ? ms(`${m[1]}${m[2].toLowerCase()}` as ms.StringValue) : Number(m[1]) * 1000;
  if (!(millis >= 1000)) throw new Error(`duration "${raw}" is shorter than one second`);
  return Math.round(millis / 1000);
}
