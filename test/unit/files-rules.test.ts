import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/api/user.ts';
import { RuleSet, compileRule, regexError } from '../../src/services/files/rules.ts';

const pathRule = (p: string, allow = false): Rule => ({ regex: false, allow, path: p, regexp: { raw: '' } });
const regexRule = (raw: string, allow = false): Rule => ({ regex: true, allow, path: '', regexp: { raw } });

describe('path rules match on segment boundaries (GHSA-5q48-q4fm-g3m6)', () => {
  const deny = compileRule(pathRule('/a'));
  it.each([
    ['/a', true],
    ['/a/b', true],
    ['/a/b/c.txt', true],
    ['/ab', false],
    ['/ab/c', false],
    ['/a.txt', false],
    ['/b/a', false],
  ])('%s matched: %s', (p, matched) => {
    expect(deny.test(p)).toBe(matched);
  });

  it('cleans the rule path (trailing slash, no leading slash, doubled slashes, backslashes)', () => {
    for (const p of ['/a/', 'a', '//a', '/a//', '\\a', '/x/../a']) expect(compileRule(pathRule(p)).test('/a/b')).toBe(true);
  });

  it('a rule path that climbs above the root matches nothing', () => {
    expect(compileRule(pathRule('/../a')).test('/a')).toBe(false);
  });

  it('"/" matches everything', () => {
    expect(compileRule(pathRule('/')).test('/anything/at/all')).toBe(true);
  });
});

describe('regex rules are unanchored', () => {
  it('matches anywhere in the path', () => {
    const r = compileRule(regexRule('\\.bak$'));
    expect(r.test('/x/y.bak')).toBe(true);
    expect(r.test('/x/y.bak.txt')).toBe(false);
    expect(compileRule(regexRule('secret')).test('/a/top-secret-b/c')).toBe(true);
  });

  it('a stored regex RE2 cannot compile fails closed: a deny rule matches everything, an allow rule nothing', () => {
    for (const raw of ['(', '(a)\\1', '(?=x)', '(?<!y)z']) {
      expect(compileRule(regexRule(raw)).test('/anything/at/all'), raw).toBe(true);
      expect(compileRule(regexRule(raw, true)).test('/('), raw).toBe(false);
    }
    const rs = new RuleSet([regexRule('(?=secret)')], [], false);
    expect(rs.allows('/public.txt')).toBe(false);
  });

  it('RE2 refuses backreferences and lookarounds when a rule is saved', () => {
    expect(regexError('\\.bak$')).toBeUndefined();
    expect(regexError('(a+)+$')).toBeUndefined();
    expect(regexError('(a)\\1')).toMatch(/escape/);
    expect(regexError('(?=x)')).toMatch(/Perl syntax/);
    expect(regexError('[')).toMatch(/missing closing/);
  });

  it('(a+)+$ against a long path answers (linear time, no backtracking)', () => {
    const r = compileRule(regexRule('(a+)+$'));
    // With a backtracking engine 40 characters take minutes; RE2 does 100000 at once.
    for (const n of [40, 100_000]) expect(r.test(`/${'a'.repeat(n)}!`)).toBe(false);
    expect(r.test(`/x/${'a'.repeat(40)}`)).toBe(true);
  });
});

describe('RuleSet: global rules then user rules, last match wins', () => {
  it('allows by default', () => {
    expect(new RuleSet([], [], false).allows('/x')).toBe(true);
    expect(new RuleSet([], [], false).isEmpty).toBe(true);
  });

  it('a user rule overrides a global rule', () => {
    const rs = new RuleSet([pathRule('/private')], [pathRule('/private/mine', true)], false);
    expect(rs.allows('/private')).toBe(false);
    expect(rs.allows('/private/other')).toBe(false);
    expect(rs.allows('/private/mine')).toBe(true);
    expect(rs.allows('/private/mine/x')).toBe(true);
    expect(rs.allows('/privateer')).toBe(true);
  });

  it('a later global rule cannot override a user rule', () => {
    const rs = new RuleSet([pathRule('/p', true)], [pathRule('/p')], false);
    expect(rs.allows('/p/x')).toBe(false);
  });

  it('mixes path and regex rules in order', () => {
    const rs = new RuleSet([regexRule('\\.log$'), pathRule('/logs/keep.log', true)], [], false);
    expect(rs.allows('/a.log')).toBe(false);
    expect(rs.allows('/logs/keep.log')).toBe(true);
  });

  it('hideDotfiles hides any segment starting with a dot, but not recursive-op checks', () => {
    const rs = new RuleSet([], [], true);
    expect(rs.allows('/.env')).toBe(false);
    expect(rs.allows('/.git/config')).toBe(false);
    expect(rs.allows('/a/.b/c')).toBe(false);
    expect(rs.allows('/a.b')).toBe(true);
    expect(rs.allowsByRules('/.env')).toBe(true);
    expect(rs.isEmpty).toBe(false);
  });
});
