/**
 * Writes that never overwrite: a new file takes its own name when free, else the first free
 * `name (n).ext` beside it (the contract's rule, src/api/files.ts). Each candidate goes through
 * the gate ('create'), so rules see the name actually written; a name taken between the check
 * and the write (placeFile links without clobbering: 409 'exists') moves on to the next one.
 */
import { freeNameCandidates } from '../../api/files.ts';
import { ConflictError } from '../../errors.ts';
import type { Gate, Target } from './gate.ts';
import { baseName, parentOf } from './paths.ts';

/** How many names are tried before giving up (409). */
const MAX_TRIES = 1000;

/**
 * Runs `place` with the first free target at or beside `target` (resolved with 'create');
 * `place` must refuse an existing name with ConflictError 'exists' rather than replace it.
 */
export async function placeUnderFreeName<T>(gate: Gate, target: Target, place: (free: Target) => Promise<T>): Promise<{ target: Target; result: T }> {
  const dir = parentOf(target.virtual);
  const names = freeNameCandidates(baseName(target.virtual), false, MAX_TRIES);
  let candidate: Target | undefined = target;
  while (candidate) {
    if (!candidate.exists) {
      try {
        return { target: candidate, result: await place(candidate) };
      } catch (err) {
        if (!(err instanceof ConflictError && err.code === 'exists')) throw err;
      }
    }
    const next = names.next();
    candidate = next.done
      ? undefined
      : await gate.resolve(target.access, `${dir === '/' ? '' : dir}/${next.value}`, 'create', { mustExist: false, allowRoot: false });
  }
  throw new ConflictError('no free name for this file', 'exists');
}
