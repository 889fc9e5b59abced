import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/index.ts';
import { completionScript } from '../../src/cli/completion.ts';

const program = await buildProgram();

/** Runs the bash completion function for a command line whose last word is being completed. */
function complete(words: string[]): string[] {
  const script = `${completionScript(program, 'bash')}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_fm
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', cwd: '/' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('fm completion', () => {
  it('bash: completes commands, subcommands and their options', () => {
    expect(complete(['fm', ''])).toEqual(expect.arrayContaining(['serve', 'users', 'config', 'rules', 'cmds', 'completion', '--database']));
    expect(complete(['fm', 'us'])).toEqual(['users']);
    expect(complete(['fm', 'users', ''])).toEqual(expect.arrayContaining(['add', 'ls', 'find', 'update', 'rm', 'export', 'import']));
    expect(complete(['fm', 'users', 'add', 'alice', '--perm-d'])).toEqual(['--perm-delete', '--perm-download']);
    expect(complete(['fm', '--database', 'x.db', 'config', 'set', '--tus-'])).toEqual(['--tus-chunk-size', '--tus-retry-count']);
  });

  it('bash: completes option values and argument choices', () => {
    expect(complete(['fm', 'config', 'set', '--auth-method', ''])).toEqual(['json', 'noauth', 'proxy', 'hook']);
    expect(complete(['fm', 'completion', ''])).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    expect(complete(['fm', 'cmds', 'add', 'after_up'])).toEqual(['after_upload']);
  });

  it('bash and zsh scripts parse', () => {
    for (const shell of ['bash', 'zsh'] as const) {
      const script = completionScript(program, shell);
      const r = spawnSync('bash', ['-n'], { input: shell === 'zsh' ? script.replace(/^autoload.*$/m, '') : script, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
    expect(completionScript(program, 'zsh')).toMatch(/^#compdef fm\n/);
  });

  it('fish: one complete line per subcommand and option, under the right command', () => {
    const fish = completionScript(program, 'fish');
    expect(fish).toContain("complete -c fm -n '__fm_at \\'users\\'' -a 'add'");
    expect(fish).toContain("complete -c fm -n '__fm_at \\'users/add\\'' -l perm-delete -d 'grant the delete permission'");
    expect(fish).toContain("-l auth-method -x -a 'json noauth proxy hook'");
    expect(fish).toMatch(/^complete -c fm -s d -l database -r -F/m);
  });
});
