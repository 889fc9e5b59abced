/**
 * Access rules, evaluated on virtual paths inside the user's scope: global rules first, then
 * the user's, and the last match wins; the default is allow. Path rules match on segment
 * boundaries; regex rules are unanchored. Dotfiles are hidden when the user asks for it.
 */
import type { Rule } from '../../api/user.ts';
import { cleanPath, isWithin } from './paths.ts';

export interface CompiledRule {
  allow: boolean;
  test(virtual: string): boolean;
}

const regexCache = new Map<string, RegExp | null>();

function compileRegex(raw: string): RegExp | null {
  let re = regexCache.get(raw);
  if (re === undefined) {
    try {
      re = new RegExp(raw);
    } catch {
      // An invalid stored regex can never match (settings validation refuses new ones).
      re = null;
    }
    if (regexCache.size > 10_000) regexCache.clear();
    regexCache.set(raw, re);
  }
  return re;
}

export function compileRule(rule: Rule): CompiledRule {
  if (rule.regex) {
    const re = compileRegex(rule.regexp.raw);
    return { allow: rule.allow, test: (v) => (re ? re.test(v) : false) };
  }
  let base: string;
  try {
    base = cleanPath(rule.path || '/').path;
  } catch {
    return { allow: rule.allow, test: () => false };
  }
  return { allow: rule.allow, test: (v) => isWithin(base, v) };
}

/** A user's effective rule set, compiled once per request. */
export class RuleSet {
  private readonly rules: CompiledRule[];

  constructor(
    globalRules: Rule[],
    userRules: Rule[],
    private readonly hideDotfiles: boolean,
  ) {
    this.rules = [...globalRules, ...userRules].map(compileRule);
  }

  /** Whether the rules allow this path (dotfiles not considered). */
  allowsByRules(virtual: string): boolean {
    let allow = true;
    for (const r of this.rules) if (r.test(virtual)) allow = r.allow;
    return allow;
  }

  /** Whether the path is hidden as a dotfile (any segment starting with "."). */
  hiddenAsDotfile(virtual: string): boolean {
    return this.hideDotfiles && /\/\./.test(virtual);
  }

  /** Visible and accessible: allowed by the rules and not a hidden dotfile. */
  allows(virtual: string): boolean {
    return !this.hiddenAsDotfile(virtual) && this.allowsByRules(virtual);
  }

  /** True when no rule can deny anything below `dir` (lets tree walks skip per-entry checks). */
  get isEmpty(): boolean {
    return this.rules.length === 0 && !this.hideDotfiles;
  }
}
