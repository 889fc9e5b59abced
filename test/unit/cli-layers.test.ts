import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { applyLayers, envName, isGiven, loadConfigFile, normKey, type FileValues } from '../../src/cli/layers.ts';
import { parseSize } from '../../src/api/size.ts';

/** Parses `args` for a tiny program and returns the leaf command after the layers are applied. */
function run(args: string[], env: Record<string, string>, file: Record<string, unknown> = {}): Command {
  const program = new Command('fm').exitOverride().option('-d, --database <file>');
  let leaf!: Command;
  program
    .command('set')
    .exitOverride()
    .option('--signup')
    .option('--no-signup')
    .option('--exec')
    .option('--no-exec')
    .addOption(new Option('--tus-chunk-size <size>').argParser(parseSize))
    .addOption(new Option('--auth-method <m>').choices(['json', 'proxy']))
    .option('--branding-name <name>')
    .option('--commands <list>')
    .option('-p, --password [password]')
    .action((_o, cmd: Command) => {
      leaf = cmd;
    });
  program.hook('preAction', (_p, action) => applyLayers(action, env, new Map(Object.entries(file).map(([k, v]) => [normKey(k), v])) as FileValues));
  program.parse(args, { from: 'user' });
  return leaf;
}

describe('option layers: flag > environment > config file > (database) > default', () => {
  it('names the variable after the long option', () => {
    expect(envName(new Option('--tus-chunk-size <n>'))).toBe('FM_TUS_CHUNK_SIZE');
    expect(envName(new Option('--no-exec'))).toBe('FM_EXEC');
    expect(envName(new Option('-d, --database <f>'))).toBe('FM_DATABASE');
  });

  it('a flag wins over the environment and the file', () => {
    const cmd = run(['set', '--tus-chunk-size', '1MB'], { FM_TUS_CHUNK_SIZE: '2MB' }, { 'tus-chunk-size': '3MB' });
    expect(cmd.opts().tusChunkSize).toBe(1024 * 1024);
    expect(cmd.getOptionValueSource('tusChunkSize')).toBe('cli');
  });

  it('the environment wins over the file, and is parsed like the flag', () => {
    const cmd = run(['set'], { FM_TUS_CHUNK_SIZE: '2MB' }, { tusChunkSize: '3MB' });
    expect(cmd.opts().tusChunkSize).toBe(2 * 1024 * 1024);
    expect(cmd.getOptionValueSource('tusChunkSize')).toBe('env');
  });

  it('the file fills what neither gives, with nested keys and numbers', () => {
    const cmd = run(['set'], {}, { 'tus.chunkSize': 3 * 1024 * 1024, 'branding.name': 'Files', commands: ['git', 'ls'] });
    expect(cmd.opts()).toMatchObject({ tusChunkSize: 3 * 1024 * 1024, brandingName: 'Files', commands: 'git,ls' });
    expect(isGiven(cmd, 'brandingName')).toBe(true);
  });

  it('leaves unset options unset, so the database value stays', () => {
    const cmd = run(['set'], {}, {});
    expect(cmd.opts().tusChunkSize).toBeUndefined();
    expect(cmd.opts().signup).toBeUndefined();
    expect(isGiven(cmd, 'signup')).toBe(false);
  });

  it('reads booleans from the environment by value: FM_EXEC=false means off', () => {
    expect(run(['set'], { FM_EXEC: 'false' }).opts().exec).toBe(false);
    expect(run(['set'], { FM_EXEC: '1' }).opts().exec).toBe(true);
    expect(run(['set'], { FM_EXEC: 'off' }, { exec: true }).opts().exec).toBe(false);
    expect(run(['set', '--exec'], { FM_EXEC: 'false' }).opts().exec).toBe(true);
    expect(run(['set', '--no-exec'], { FM_EXEC: 'true' }).opts().exec).toBe(false);
  });

  it('reads booleans from the file, including the no- form', () => {
    expect(run(['set'], {}, { signup: 'yes' }).opts().signup).toBe(true);
    expect(run(['set'], {}, { 'no-signup': true }).opts().signup).toBe(false);
  });

  it('applies global options too', () => {
    const cmd = run(['set'], { FM_DATABASE: '/tmp/x.db' });
    expect(cmd.optsWithGlobals().database).toBe('/tmp/x.db');
  });

  it('an optional-value option set to true in the file means "given, ask"', () => {
    expect(run(['set'], {}, { password: true }).opts().password).toBe(true);
    expect(run(['set'], { FM_PASSWORD: 'from-env' }).opts().password).toBe('from-env');
  });

  it('refuses bad values from the environment or the file with a usage error', () => {
    expect(() => run(['set'], { FM_EXEC: 'maybe' })).toThrow(/FM_EXEC: expected true or false/);
    expect(() => run(['set'], { FM_TUS_CHUNK_SIZE: 'lots' })).toThrow(/FM_TUS_CHUNK_SIZE: invalid value "lots": invalid size/);
    expect(() => run(['set'], {}, { 'auth-method': 'ldap' })).toThrow(/auth-method.*ldap/);
  });
});

describe('config files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-layers-'));

  it('reads YAML and JSON into flattened keys', async () => {
    const yaml = path.join(dir, 'fm.yaml');
    fs.writeFileSync(yaml, 'database: /var/lib/fm/fm.db\nbranding:\n  name: Team\ntus-chunk-size: 10MB\n');
    expect(Object.fromEntries(await loadConfigFile(yaml))).toEqual({ database: '/var/lib/fm/fm.db', brandingname: 'Team', tuschunksize: '10MB' });
    const json = path.join(dir, 'fm.json');
    fs.writeFileSync(json, '{"signup": true, "minPasswordLength": 16}');
    expect(Object.fromEntries(await loadConfigFile(json))).toEqual({ signup: true, minpasswordlength: 16 });
  });

  it('refuses a missing, malformed or non-mapping file with a usage error', async () => {
    await expect(loadConfigFile(path.join(dir, 'missing.yaml'))).rejects.toThrow(/cannot read config file/);
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'a: [1, 2\n');
    await expect(loadConfigFile(bad)).rejects.toThrow(/not valid YAML or JSON/);
    fs.writeFileSync(bad, '- a\n- b\n');
    await expect(loadConfigFile(bad)).rejects.toThrow(/mapping/);
  });
});
