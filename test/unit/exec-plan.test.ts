/**
 * What fm runs for a checked line: argv without a shell; with one, a script fm writes itself
 * (absolute programs, single-quoted words, redirections resolved through the gate).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gate, type Access } from '../../src/services/files/gate.ts';
import { planCommand, quote, resolveProgram, type PlanOptions } from '../../src/services/exec/plan.ts';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';

describe('planCommand', () => {
  let root: string;
  let gate: Gate;
  let access: Access;
  let base: PlanOptions;

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-plan-')));
    fs.mkdirSync(path.join(root, 'u', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'u', 'in.txt'), 'x');
    fs.symlinkSync('/etc', path.join(root, 'u', 'etc-link'));
    gate = new Gate(root, []);
    const user = {
      ...UserDataSchema.parse({ username: 'u', scope: '/u', perm: { create: true, modify: true, execute: true } }),
      sessionEpoch: 0,
      updatedAt: 0,
    } as UserRecord;
    access = await gate.access(user, SettingsSchema.parse({}));
    base = { purpose: 'run', shell: [], allowlist: ['echo', 'cat', 'grep', 'ls'], gate, access, cwdVirtual: '/', cwd: access.rootReal };
  });

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('without a shell: the program by absolute path, argv as parsed, argv0 as typed', async () => {
    const plan = await planCommand(`echo 'a b' "c"`, base);
    expect(plan).toMatchObject({ file: await resolveProgram('echo'), args: ['a b', 'c'], argv0: 'echo', cwd: access.rootReal, background: false });
    expect(path.isAbsolute(plan.file)).toBe(true);
  });

  it('with a shell: a script of quoted words, absolute programs and resolved redirections', async () => {
    const plan = await planCommand(`cat in.txt | grep 'x' > out.txt 2>&1 && echo "it's" >> sub/log; ls 2> err &> all`, { ...base, shell: ['sh', '-c'] });
    const cat = await resolveProgram('cat');
    const grep = await resolveProgram('grep');
    const echo = await resolveProgram('echo');
    const ls = await resolveProgram('ls');
    const u = access.rootReal;
    expect(plan.file).toBe(await resolveProgram('sh'));
    expect(plan.argv0).toBe('sh');
    expect(plan.args).toEqual([
      '-c',
      `${quote(cat)} 'in.txt' | ${quote(grep)} 'x' 1>${quote(`${u}/out.txt`)} 2>&1 && ${quote(echo)} 'it'\\''s' 1>>${quote(`${u}/sub/log`)}; ` +
        `${quote(ls)} 2>${quote(`${u}/err`)} 1>${quote(`${u}/all`)} 2>&1`,
    ]);
    expect(plan.programs).toEqual(['cat', 'grep', 'echo', 'ls']);
  });

  it('EXEC: checks every program of a line against the allowlist', async () => {
    await expect(planCommand('echo a | id', { ...base, shell: ['sh', '-c'] })).rejects.toThrow(/"id" is not in your allowed commands/);
    await expect(planCommand('echo a && /bin/echo b', { ...base, shell: ['sh', '-c'] })).rejects.toThrow(/"\/bin\/echo" is not/);
  });

  it('EXEC: redirections stay inside the current folder and go through the gate', async () => {
    const shell = { ...base, shell: ['sh', '-c'], cwdVirtual: '/sub', cwd: path.join(access.rootReal, 'sub') };
    await expect(planCommand('echo a > ../x', shell)).rejects.toThrow(/outside the current folder/);
    await expect(planCommand('echo a > .', shell)).rejects.toThrow(/outside the current folder/);
    await expect(planCommand('cat < /etc/passwd', shell)).rejects.toThrow(/outside the current folder/);
    const top = { ...base, shell: ['sh', '-c'] };
    await expect(planCommand('echo a > etc-link/x', top)).rejects.toThrow(/outside your scope/);
    await expect(planCommand('cat < etc-link', top)).rejects.toThrow(/outside your scope/);
    await expect(planCommand('echo a > sub', top)).rejects.toThrow(/folder/);
  });

  it('EXEC: arguments are followed like the kernel follows them: a link, then ..', async () => {
    // Lexically `etc-link/../etc/passwd` is `/etc/passwd` inside the scope (missing); physically it is /etc/passwd.
    await expect(planCommand('cat etc-link/../etc/passwd', base)).rejects.toThrow(/leads outside your scope/);
    await expect(planCommand('cat etc-link/passwd', base)).rejects.toThrow(/leads outside your scope/);
    await expect(planCommand('cat /etc/passwd', base)).rejects.toThrow(/absolute path/);
    await expect(planCommand('grep -fetc-link/passwd x', base)).rejects.toThrow(/leads outside your scope/);
    await expect(planCommand('grep --file=../x y', base)).rejects.toThrow(/leads outside your scope/);
    await expect(planCommand('cat sub/../in.txt', base)).resolves.toMatchObject({ args: ['sub/../in.txt'] });
    await expect(planCommand('grep -r -n x .', base)).resolves.toMatchObject({ args: ['-r', '-n', 'x', '.'] });
  });

  it('EXEC: hooks skip the allowlist but keep the syntax and redirection checks', async () => {
    const hook = { ...base, purpose: 'hook' as const, allowlist: undefined };
    await expect(planCommand('true', hook)).resolves.toMatchObject({ argv0: 'true' });
    await expect(planCommand('true &', hook)).resolves.toMatchObject({ background: true });
    await expect(planCommand('true & true', hook)).rejects.toThrow(/only allowed at the end/);
    await expect(planCommand('echo $FILE', hook)).rejects.toThrow(/variables/);
    await expect(planCommand('echo > /tmp/x', { ...hook, shell: ['sh', '-c'] })).rejects.toThrow(/outside the current folder/);
  });

  it('EXEC: refuses relative program paths and unknown programs', async () => {
    await expect(planCommand('./echo', { ...base, allowlist: ['./echo'] })).rejects.toThrow(/absolute path/);
    await expect(planCommand('nope-fm-test', { ...base, allowlist: ['nope-fm-test'] })).rejects.toThrow(/command not found/);
  });

  it('quote() survives every byte a word can hold', () => {
    expect(quote(`a'b"c$d\`e\\f`)).toBe(`'a'\\''b"c$d\`e\\f'`);
  });
});
