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

/**
 * Keeps at the front of `ids[0 .. n)`, in order, the live entries whose name contains any of
 * `terms` (non-empty; as `nameMatcher` decides); returns how many. A query hands it blocks of
 * candidates: one loop per block, compiled on the first query, rather than a call chain per
 * candidate. One ASCII term (the common case) is tested on the bytes directly.
 */
export function namedFilter(store: EntryStore, terms: string[], caseSensitive: boolean): (ids: Int32Array, n: number) => number {
  const term = terms.length === 1 ? terms[0] : undefined;
  if (term !== undefined && (caseSensitive || ASCII.test(term))) {
    const bytes = Buffer.from(caseSensitive ? term : term.toLowerCase());
    const lowered = term.toLowerCase();
    const fold = !caseSensitive;
    return (ids, n) => {
      let k = 0;
      for (let i = 0; i < n; i++) {
        const id = ids[i];
        if (store.isDead(id)) continue;
        const has = store.nameHas(id, bytes, fold);
        // Undefined: a name that is not ASCII, compared lower-cased.
        if (has || (has === undefined && store.name(id).toLowerCase().includes(lowered))) ids[k++] = id;
      }
      return k;
    };
  }
  const named = nameMatcher(store, terms, caseSensitive);
  return (ids, n) => {
    let k = 0;
    for (let i = 0; i < n; i++) {
      const id = ids[i];
      if (!store.isDead(id) && named(id)) ids[k++] = id;
    }
    return k;
  };
}
