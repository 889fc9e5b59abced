/**
 * Matching names against search terms on the packed bytes of the store, without making a string
 * of each candidate's name: exact bytes when case matters, ASCII case folding for ASCII terms and
 * names (the common case), and lower-cased strings only for the others.
 */
import type { EntryStore } from './store.ts';

const ASCII = /^[\x00-\x7f]*$/;

/** A test of whether an entry's name contains any of `terms` (non-empty). */
export function nameMatcher(store: EntryStore, terms: string[], caseSensitive: boolean): (id: number) => boolean {
  if (caseSensitive) {
    const exact = terms.map((t) => Buffer.from(t));
    return (id) => exact.some((b) => store.nameHas(id, b, false));
  }
  const lowered = terms.map((t) => t.toLowerCase());
  const folded = lowered.map((t) => (ASCII.test(t) ? Buffer.from(t) : undefined));
  return (id) => {
    let lower: string | undefined;
    for (let i = 0; i < lowered.length; i++) {
      const bytes = folded[i];
      const has = bytes ? store.nameHas(id, bytes, true) : undefined;
      if (has !== undefined) {
        if (has) return true;
        continue;
      }
      lower ??= store.name(id).toLowerCase();
      if (lower.includes(lowered[i])) return true;
    }
    return false;
  };
}
