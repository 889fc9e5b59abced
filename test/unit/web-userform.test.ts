/** The user form's rules (spec §4 "Admin flag", §5 commands and rules, blank password on edit). */
import { describe, expect, it } from 'vitest';
import { changedFields, commandsFromText, draftFrom, isSensitive, setPermission, userData } from '../../web/lib/userDraft.ts';
import { completeRules, emptyRule } from '../../web/lib/rules.ts';
import { permissionProblem } from '../../src/api/user.ts';

const perm = { admin: false, execute: false, create: true, rename: false, modify: false, delete: false, share: false, download: true };
const base = () => draftFrom({ username: 'ann', scope: '/ann', locale: 'en', perm, commands: ['ls'], lockPassword: true, rules: [] });

describe('user form', () => {
  it('splits commands on spaces; empty input gives an empty list', () => {
    expect(commandsFromText('ls  echo ')).toEqual(['ls', 'echo']);
    expect(commandsFromText('')).toEqual([]);
  });

  it('ticking admin sets every permission and clears lockPassword', () => {
    const d = setPermission(base(), 'admin', true);
    expect(Object.values(d.perm).every(Boolean)).toBe(true);
    expect(d.lockPassword).toBe(false);
    const off = setPermission(d, 'admin', false);
    expect(off.perm.admin).toBe(false);
    expect(off.perm.create).toBe(true);
  });

  it('keeps share with download, as the server requires: ticking share ticks download, clearing download clears share', () => {
    const noDownload = draftFrom({ username: 'ann', scope: '/ann', locale: 'en', perm: { ...perm, download: false }, commands: [] });
    const shared = setPermission(noDownload, 'share', true);
    expect(shared.perm.share).toBe(true);
    expect(shared.perm.download).toBe(true);
    expect(permissionProblem(shared.perm)).toBeUndefined();
    const cleared = setPermission(shared, 'download', false);
    expect(cleared.perm.download).toBe(false);
    expect(cleared.perm.share).toBe(false);
    expect(permissionProblem({ ...perm, share: true, download: false })).toBe('share permission requires download permission');
  });

  it('sends only changed fields; a blank password is no change; scope is blank while the home folder is created', () => {
    const before = base();
    expect(changedFields(before, { ...before })).toEqual([]);
    expect(changedFields(before, { ...before, locale: 'de' })).toEqual(['locale']);
    expect(isSensitive(['locale'])).toBe(false);
    const pw = { ...before, password: 'new-long-password' };
    expect(changedFields(before, pw)).toEqual(['password']);
    expect(isSensitive(['password'])).toBe(true);
    expect(userData({ ...before, createUserDir: true }).scope).toBe('');
  });

  it('drops rules without a path or an expression', () => {
    const rules = [
      emptyRule(),
      { ...emptyRule(), path: '/x' },
      { ...emptyRule(), regex: true, regexp: { raw: '\\.env$' } },
      { ...emptyRule(), regex: true, path: '/ignored' },
    ];
    expect(completeRules(rules)).toEqual([rules[1], rules[2]]);
  });
});
