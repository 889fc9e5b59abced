/**
 * The CLI routes allowlist writes through the same checks as the API, and `--force` reaches
 * them as `allowLaunchers`. The exec feature installs the real check; here a stand-in refuses
 * `sh` unless forced, installed where the composition root will install the real one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BadRequestError } from '../../src/errors.ts';
import type { AllowlistOptions } from '../../src/services/settings.ts';

const calls: Array<{ what: string; list: string[]; options: AllowlistOptions }> = [];

function refuseLaunchers(what: string, list: string[], options: AllowlistOptions = {}): void {
  calls.push({ what, list, options });
  if (list.includes('sh') && !options.allowLaunchers) throw new BadRequestError(`"sh" runs any program: refused in ${what} (use --force)`);
}

vi.mock('../../src/services/index.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/services/index.ts')>();
  return {
    ...real,
    createServices: (...args: Parameters<typeof real.createServices>) => {
      const services = real.createServices(...args);
      services.validateSettings = async (next, _current, options) => refuseLaunchers('the shell', next.shell, options);
      services.users.validateCommands = (commands, options) => refuseLaunchers('commands', commands, options);
      return services;
    },
  };
});

const { main } = await import('../../src/cli/index.ts');

let dir: string;
let db: string;
let stderr: string;

async function fm(...args: string[]): Promise<number> {
  stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return await main(['node', 'fm', '--database', db, ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-allowlist-'));
  db = path.join(dir, 'fm.db');
  expect(await fm('config', 'init')).toBe(0);
  expect(await fm('users', 'add', 'admin', 'admin-long-password', '--admin')).toBe(0);
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  calls.length = 0;
});

describe('launchers in allowlists need --force, from the CLI too', () => {
  it('users add --commands', async () => {
    expect(await fm('users', 'add', 'ann', 'ann-long-password', '--commands', 'ls,sh')).toBe(1);
    expect(stderr).toBe('fm: "sh" runs any program: refused in commands (use --force)\n');
    expect(await fm('users', 'find', 'ann')).toBe(1);
    expect(await fm('users', 'add', 'ann', 'ann-long-password', '--commands', 'ls,sh', '--force')).toBe(0);
    expect(calls.at(-1)).toEqual({ what: 'commands', list: ['ls', 'sh'], options: { allowLaunchers: true } });
  });

  it('users update --commands, checked only when the list changes', async () => {
    expect(await fm('users', 'add', 'ben', 'ben-long-password')).toBe(0);
    expect(await fm('users', 'update', 'ben', '--commands', 'sh')).toBe(1);
    expect(await fm('users', 'update', 'ben', '--commands', 'sh', '--force')).toBe(0);
    calls.length = 0;
    expect(await fm('users', 'update', 'ben', '--locale', 'de')).toBe(0);
    expect(calls).toEqual([]);
  });

  it('config set --shell', async () => {
    expect(await fm('config', 'set', '--shell', 'sh -c')).toBe(1);
    expect(stderr).toMatch(/refused in the shell/);
    expect(await fm('config', 'set', '--shell', 'sh -c', '--force')).toBe(0);
    expect(calls.at(-1)).toEqual({ what: 'the shell', list: ['sh', '-c'], options: { allowLaunchers: true } });
  });

  it('every other settings write goes through the same check (without force)', async () => {
    expect(await fm('config', 'set', '--shell', '')).toBe(0);
    calls.length = 0;
    expect(await fm('rules', 'add', '/x')).toBe(0);
    expect(await fm('cmds', 'add', 'after_save', 'true')).toBe(0);
    expect(calls.map((c) => c.what)).toEqual(['the shell', 'the shell']);
  });

  it('users import and config import take --force', async () => {
    const users = path.join(dir, 'users.json');
    expect(await fm('users', 'export', users)).toBe(0);
    expect(await fm('users', 'import', users, '--replace')).toBe(1);
    expect(stderr).toMatch(/refused in commands/);
    expect(await fm('users', 'import', users, '--replace', '--force')).toBe(0);
    const cfg = path.join(dir, 'config.json');
    expect(await fm('config', 'set', '--shell', 'sh -c', '--force')).toBe(0);
    expect(await fm('config', 'export', cfg)).toBe(0);
    expect(await fm('config', 'import', cfg)).toBe(1);
    expect(await fm('config', 'import', cfg, '--force')).toBe(0);
  });
});
