/**
 * The name a drop visitor uploads to, as it comes in the URL (`a.txt`, `photos/2024/b.jpg` for a
 * folder drop): each segment decoded once and checked on its own, so nothing can climb out of
 * the shared folder or name it: an empty segment (a leading or doubled "/"), ".", "..", a "/",
 * "\" or NUL inside a segment are all 400.
 */
import { BadRequestError } from '../../errors.ts';
import { checkName, cleanPath } from '../files/paths.ts';

/** Folders a drop may nest (a folder drop of a deep tree beyond this is refused). */
export const MAX_DROP_DEPTH = 32;

/** The virtual path (under the shared folder) of a still-encoded drop name; 400 when it is not one. */
export function dropPath(encoded: string): string {
  if (!encoded) throw new BadRequestError('the file name is missing');
  const segments = encoded.split('/');
  if (segments.length > MAX_DROP_DEPTH) throw new BadRequestError(`a drop nests at most ${MAX_DROP_DEPTH} folders`);
  const names = segments.map((segment) => {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      throw new BadRequestError('invalid percent-encoding or UTF-8 in the name');
    }
    if (name === '' || name === '.' || name === '..') throw new BadRequestError('a name cannot be empty, "." or ".." (nor start with "/")');
    return checkName(name);
  });
  return cleanPath(`/${names.join('/')}`).path;
}
