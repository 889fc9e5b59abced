/** Rules as the forms edit them (spec §5: a rule needs a path or a regular expression, chosen by the regex toggle). */
import type { Rule } from '../../src/api/user.ts';

export function emptyRule(): Rule {
  return { allow: false, regex: false, path: '', regexp: { raw: '' } };
}

/** Rules without a path or an expression are dropped on save. */
export function completeRules(rules: readonly Rule[]): Rule[] {
  return rules.filter((r) => (r.regex ? r.regexp.raw.trim() !== '' : r.path.trim() !== ''));
}
