/** `fm hash`, `fm version`, `fm completion`, help, and the exit-code conventions. */
import bcrypt from 'bcryptjs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { buildProgram } from '../../src/cli/index.ts';
import { FM_BIN } from '../helpers/server.ts';

vi.setConfig({ testTimeout: 60_000 });

describe('small commands', () => {
  it('fm hash prints a bcrypt hash of the password (cost 10)', async () => {
    const r = await runFm(['hash', 'correct horse battery staple']);
    expect(r.code).toBe(0);
    const hash = r.stdout.trim();
    expect(hash).toMatch(/^\$2[aby]\$10\$.{53}$/);
    expect(await bcrypt.compare('correct horse battery staple', hash)).toBe(true);
    expect(JSON.parse((await runFm(['hash', 'x', '--json'])).stdout).hash).toMatch(/^\$2/);
  });

  it('fm version prints the package version', async () => {
    const r = await runFm(['version']);
    expect(r).toEqual({ code: 0, stdout: expect.stringMatching(/^fm v\d+\.\d+\.\d+\n$/), stderr: '' });
    expect(JSON.parse((await runFm(['version', '--json'])).stdout)).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect((await runFm(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('fm completion prints a script for bash, zsh and fish that mentions every command', async () => {
    const shells = ['bash', 'zsh', 'fish'];
    const [bash, ...rest] = await Promise.all(shells.map((shell) => runFm(['completion', shell])));
    for (const [i, r] of [bash, ...rest].entries()) {
      expect(r.code).toBe(0);
      for (const word of ['serve', 'users', 'config', 'rules', 'cmds', '--tus-chunk-size'])
        expect(r.stdout).toContain(word.replace(/^--/, shells[i] === 'fish' ? '' : '--'));
    }
    expect(spawnSync('bash', ['-n'], { input: bash.stdout }).status).toBe(0);
    expect((await runFm(['completion', 'powershell'])).code).toBe(2);
  });
});

describe('conventions', () => {
  it('--help shows examples for commands', async () => {
    const commands = [
      ['users', 'add'],
      ['config', 'set'],
      ['rules', 'add'],
      ['cmds', 'add'],
      ['users', 'import'],
    ];
    for (const r of await Promise.all(commands.map((cmd) => runFm([...cmd, '--help'])))) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n {2}fm /);
    }
  });

  it('fm serve --help shows serve and the program options; fm --help serve every command', async () => {
    const [serve, program] = await Promise.all([runFm(['serve', '--help']), runFm(['--help', 'serve'])]);
    expect([serve.code, program.code]).toEqual([0, 0]);
    expect(serve.stdout).toMatch(/^Usage: fm serve /);
    expect(serve.stdout).toMatch(/--webdav-prefix/);
    expect(serve.stdout).toMatch(/Global Options:[\s\S]*--database/);
    expect(program.stdout).toMatch(/^Usage: fm /);
    for (const name of ['serve', 'users', 'config', 'completion']) expect(program.stdout).toMatch(new RegExp(`\\n {2}${name}\\b`));
  });

  it("the binary's help lists every command of the tree, and each command's help its subcommands and options", async () => {
    // The binary loads the command groups' modules only for the lines that need them (src/cli/index.ts).
    const tree = await buildProgram();
    const groups = ['serve', 'users', 'config', 'rules', 'cmds', 'shares', 'tokens', 'hash', 'version', 'completion', 'trash', 'audit', 'db'];
    expect(tree.commands.map((cmd) => cmd.name())).toEqual(groups);
    const program = await runFm(['--help']);
    for (const cmd of tree.commands) expect(program.stdout).toMatch(new RegExp(`\\n {2}${cmd.name()}\\b`));
    const helps = await Promise.all(tree.commands.map((cmd) => runFm([cmd.name(), '--help'])));
    tree.commands.forEach((cmd, i) => {
      expect(helps[i].code, cmd.name()).toBe(0);
      for (const sub of cmd.commands) expect(helps[i].stdout, cmd.name()).toMatch(new RegExp(`\\n {2}${sub.name()}\\b`));
      for (const option of cmd.options) expect(helps[i].stdout, cmd.name()).toContain(option.long ?? option.flags);
    });
  });

  it('usage errors exit 2 with one fm: line; no stack traces', async () => {
    const cases = [['frobnicate'], ['users', 'add'], ['users', 'ls', '--colour'], ['rules', 'rm']];
    for (const r of await Promise.all(cases.map((args) => runFm(args)))) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^fm: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await runFm([])).code).toBe(2);
  });

  it('a database that is not an fm database is a one-line failure (exit 1)', async () => {
    const r = await runFm(['users', 'ls', '--database', FM_BIN]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^fm: .*not an fm database \(not a SQLite file\)\n$/);
  });

  it('a reader that stops early is not an error', () => {
    const r = spawnSync('bash', ['-c', `node '${FM_BIN}' completion bash | head -1; exit "\${PIPESTATUS[0]}"`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
