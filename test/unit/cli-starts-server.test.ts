/**
 * `fm serve` loads and builds only its own command (src/cli/index.ts startsServer); every other line builds the whole
 * tree.
 */
import { describe, expect, it, vi } from 'vitest';
import { buildProgram, startsServer } from '../../src/cli/index.ts';

// Records which of the other groups' modules are evaluated (the real module is still what they export).
const { loaded, recordLoad } = vi.hoisted(() => {
  const loaded = new Set<string>();
  return {
    loaded,
    recordLoad: (name: string) => async (importOriginal: () => Promise<unknown>) => {
      loaded.add(name);
      return importOriginal();
    },
  };
});
vi.mock('../../src/cli/commands/users.ts', recordLoad('users'));
vi.mock('../../src/cli/commands/config.ts', recordLoad('config'));
vi.mock('../../src/cli/commands/rules.ts', recordLoad('rules'));
vi.mock('../../src/cli/commands/cmds.ts', recordLoad('cmds'));
vi.mock('../../src/cli/commands/shares.ts', recordLoad('shares'));
vi.mock('../../src/cli/commands/tokens.ts', recordLoad('tokens'));
vi.mock('../../src/cli/commands/hash.ts', recordLoad('hash'));
vi.mock('../../src/cli/commands/version.ts', recordLoad('version'));
vi.mock('../../src/cli/commands/completion.ts', recordLoad('completion'));
vi.mock('../../src/cli/commands/trash.ts', recordLoad('trash'));
vi.mock('../../src/cli/commands/audit.ts', recordLoad('audit'));
vi.mock('../../src/cli/commands/db.ts', recordLoad('db'));

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

  it("gets a tree of serve alone, without loading the other groups' modules; any other line the whole tree", async () => {
    expect((await buildProgram(['serve'])).commands.map((c) => c.name())).toEqual(['serve']);
    expect([...loaded]).toEqual([]);
    expect((await buildProgram(['users', 'ls'])).commands.map((c) => c.name())).toContain('users');
    expect((await buildProgram(['users', 'ls'])).commands.length).toBe((await buildProgram()).commands.length);
    expect(loaded.size).toBe(12);
  });
});
