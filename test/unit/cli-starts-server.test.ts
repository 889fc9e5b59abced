/** `fm serve` builds only its own command (src/cli/index.ts startsServer); every other line builds the whole tree. */
import { describe, expect, it } from 'vitest';
import { buildProgram, startsServer } from '../../src/cli/index.ts';

describe('a command line that starts the server', () => {
  it('is one whose first word, after the program options and their values, is serve', () => {
    for (const args of [
      ['serve'],
      ['serve', '-p', '0'],
      ['-d', 'x.db', 'serve'],
      ['--database', 'serve.db', 'serve'],
      ['--database=x.db', 'serve'],
      ['--json', '-c', 'fm.yaml', 'serve'],
    ]) {
      expect(startsServer(args), args.join(' ')).toBe(true);
    }
  });

  it('is not one that names another command, gives serve as an option value, or asks for help or the version first', () => {
    for (const args of [
      [],
      ['users', 'ls'],
      ['-d', 'serve'],
      ['-c', 'serve', 'users'],
      ['--help', 'serve'],
      ['-h', 'serve'],
      ['-v', 'serve'],
      ['help', 'serve'],
      ['completion', 'bash'],
    ]) {
      expect(startsServer(args), args.join(' ')).toBe(false);
    }
  });

  it('gets a tree of serve alone; any other line the whole tree', () => {
    expect(buildProgram(['serve']).commands.map((c) => c.name())).toEqual(['serve']);
    expect(buildProgram(['users', 'ls']).commands.map((c) => c.name())).toContain('users');
    expect(buildProgram(['users', 'ls']).commands.length).toBe(buildProgram().commands.length);
  });
});
