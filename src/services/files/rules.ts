/**
 * Access rules, evaluated on virtual paths inside the user's scope: global rules first, then
 * the user's, and the last match wins; the default is allow. Path rules match on segment
 * boundaries; regex rules are unanchored. Dotfiles are hidden when the user asks for it.
 *
 * Regular expressions run on RE2 (re2js), whose matching time is linear in the path: a
 * pattern like `(a+)+$` cannot stall the server, whoever sends the path (an anonymous visitor
 * of a public share included). RE2 has no backreferences or lookarounds; such patterns are
 * refused when saved (`regexError`). A stored pattern that does not compile fails closed: a
 * deny rule matches every path, an allow rule none.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import type { Rule } from '../../api/user.ts';
import { cleanPath, isWithin } from './paths.ts';

export interface CompiledRule {
  allow: boolean;
  test(virtual: string): boolean;
}

const regexCache = new Map<string, RE2JS | null>();

// re2js (about 280 KB) is loaded when the first regular expression is compiled: most instances
// have no regex rule, and start-up should not pay for parsing it.
const requireModule = createRequire(import.meta.url);
let re2: typeof RE2JS | undefined;
function engine(): typeof RE2JS {
  re2 ??= (requireModule('re2js') as typeof import('re2js')).RE2JS;
  return re2;
}

function compileRegex(raw: string): RE2JS | null {
  let re = regexCache.get(raw);
  if (re === undefined) {
    try {
      re = engine().compile(raw);
    } catch {
      re = null;
    }
    if (regexCache.size > 10_000) regexCache.clear();
    regexCache.set(raw, re);
  }
  return re;
}

/**
 * Why a regular expression cannot be a rule (it does not compile on RE2: a syntax error, a
 * backreference, a lookaround), or undefined when it can.
 */
export function regexError(raw: string): string | undefined {
  try {
    engine().compile(raw);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, '');
  }
}

export function compileRule(rule: Rule): CompiledRule {
  if (rule.regex) {
    const re = compileRegex(rule.regexp.raw);
    // Fail closed: what a broken deny rule was meant to hide stays hidden (all of it).
    if (!re) return { allow: rule.allow, test: () => !rule.allow };
    return { allow: rule.allow, test: (v) => re.test(v) };
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
  private sourceKey?: string;

  constructor(
    private readonly globalRules: readonly Rule[],
    private readonly userRules: readonly Rule[],
    private readonly hideDotfiles: boolean,
  ) {
    this.rules = [...globalRules, ...userRules].map(compileRule);
  }

  /** The rules this set was compiled from, as a string: two sets with the same key decide every path alike. */
  get key(): string {
    this.sourceKey ??= JSON.stringify([this.globalRules, this.userRules, this.hideDotfiles]);
    return this.sourceKey;
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

  /** True when there are rules (dotfiles aside): real locations need checking. */
  get hasRules(): boolean {
    return this.rules.length > 0;
  }
}
