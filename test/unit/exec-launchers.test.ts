/**
 * Launchers (programs that run other programs) and the allowlist and shell-setting checks.
 * EXEC class, GHSA-3q2w-42mv-cph4: allowlisted commands must not spawn others.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/errors.ts';
import { checkAllowlist, checkShellSetting, isLauncher, launcherReason } from '../../src/services/exec/launchers.ts';
import { validateExecSettings } from '../../src/services/exec/index.ts';
import { SettingsSchema } from '../../src/schemas/settings.ts';

describe('launchers', () => {
  it('knows shells, exec wrappers, privilege tools, interpreters and programs with exec options', () => {
    const launchers = [
      'sh',
      'bash',
      'dash',
      'zsh',
      'fish',
      'busybox',
      'env',
      'xargs',
      'find',
      'nice',
      'nohup',
      'timeout',
      'sudo',
      'su',
      'doas',
      'python',
      'python3',
      'python3.12',
      'perl',
      'perl5.36',
      'ruby',
      'node',
      'nodejs',
      'php',
      'php8.2',
      'lua5.4',
      'awk',
      'gawk',
      'mawk',
      'sed',
      'git',
      'ssh',
      'script',
      'watch',
      'strace',
      'chroot',
      'setsid',
      'tar',
      'rsync',
      'make',
      'vim',
      'ed',
      'man',
      'flock',
      'stdbuf',
      'sqlite3',
      'psql',
      'eval',
      'exec',
      'command',
      'ld-linux-x86-64.so.2',
      '/usr/bin/python3',
      '/bin/sh',
      './env',
    ];
    for (const name of launchers) expect(isLauncher(name), name).toBe(true);
    expect(launcherReason('python3')).toMatch(/interpreter/);
    expect(launcherReason('bash')).toMatch(/shell/);
  });

  it('lets ordinary programs through', () => {
    for (const name of [
      'ls',
      'cat',
      'echo',
      'printf',
      'grep',
      'wc',
      'head',
      'tail',
      'sort',
      'uniq',
      'du',
      'df',
      'printenv',
      'pwd',
      'sleep',
      'convert',
      'ffmpeg',
      'jq',
    ]) {
      expect(isLauncher(name), name).toBe(false);
    }
    expect(isLauncher('constructor')).toBe(false);
    expect(isLauncher('toString')).toBe(false);
  });
});

describe('checkAllowlist', () => {
  it('EXEC: refuses a launcher newly added, saying why and how to force it', () => {
    expect(() => checkAllowlist(['ls', 'env'], ['ls'], false)).toThrow(BadRequestError);
    expect(() => checkAllowlist(['ls', 'env'], ['ls'], false)).toThrow(/"env" can launch other programs \(it runs the program named in its arguments\).*force/);
  });

  it('accepts a launcher with force, and one that was already there', () => {
    expect(() => checkAllowlist(['ls', 'env'], ['ls'], true)).not.toThrow();
    expect(() => checkAllowlist(['ls', 'env'], ['ls', 'env'], false)).not.toThrow();
  });

  it('refuses entries that are not a single program name', () => {
    expect(() => checkAllowlist(['ls -la'], [], false)).toThrow(/not a program name/);
    expect(() => checkAllowlist([''], [], true)).toThrow(/not a program name/);
  });
});

describe('checkShellSetting', () => {
  it('accepts no shell and POSIX shells with -c', () => {
    for (const shell of [[], ['sh', '-c'], ['bash', '-c'], ['/bin/bash', '--norc', '--noprofile', '-c'], ['dash', '-e', '-c'], ['bash', '-ec']]) {
      expect(() => checkShellSetting(shell), shell.join(' ')).not.toThrow();
    }
  });

  it('EXEC: refuses other programs, options that change how the line is read, and a missing -c', () => {
    for (const shell of [
      ['python3', '-c'],
      ['env', 'bash', '-c'],
      ['fish', '-c'],
      ['bash'],
      ['bash', '-i', '-c'],
      ['bash', '-c', 'id'],
      ['bash', '-O', 'extglob', '-c'],
      ['bin/sh', '-c'],
      ['zsh', '-c'],
    ]) {
      expect(() => checkShellSetting(shell), shell.join(' ')).toThrow(BadRequestError);
    }
  });
});

describe('validateExecSettings', () => {
  const base = SettingsSchema.parse({});

  it('EXEC: refuses a launcher in defaults.commands unless forced', async () => {
    const next = { ...base, defaults: { ...base.defaults, commands: ['ls', 'find'] } };
    await expect(validateExecSettings(next, base)).rejects.toThrow(/defaults\.commands: "find" can launch/);
    await expect(validateExecSettings(next, base, { allowLaunchers: true })).resolves.toBeUndefined();
  });

  it('EXEC: refuses hook lines fm cannot run safely, naming the trigger', async () => {
    for (const line of ['echo $FILE', 'echo x; id', 'id | sh', 'echo `id`', 'no-such-program-for-fm']) {
      const next = { ...base, commands: { ...base.commands, after_upload: [line] } };
      await expect(validateExecSettings(next, base), line).rejects.toThrow(/commands\.after_upload/);
    }
    const ok = { ...base, commands: { ...base.commands, after_upload: ['echo upload done', 'true &'] } };
    await expect(validateExecSettings(ok, base)).resolves.toBeUndefined();
  });

  it('checks the shell program exists', async () => {
    await expect(validateExecSettings({ ...base, shell: ['/nonexistent/bash', '-c'] }, base)).rejects.toThrow(/shell: command not found/);
  });
});
