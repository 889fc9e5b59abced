/** `fm trash ls|restore|rm|empty` and `fm config set --trash-retention` on a running server's root and database. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrashItem } from '../../src/api/trash.ts';
import { runFm } from '../helpers/cli.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS } from './share-helpers.ts';

let fm: FmServer;
let dave: Client;
const fmCli = (...args: string[]) => runFm(['--database', fm.dbFile, ...args], { env: { FM_ROOT: fm.root } });
const at = (p: string) => path.join(fm.root, 'dave', p);

async function ls(): Promise<TrashItem[]> {
  const r = await fmCli('trash', 'ls', '--user', 'dave', '--json');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TrashItem[];
}

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  fs.mkdirSync(path.join(fm.root, 'dave'));
  dave = (await createUser(await adminClient(fm), fm, 'dave', { scope: '/dave', perm: PERMS })).client;
});
afterAll(async () => {
  await fm?.stop();
});

describe('fm trash', () => {
  it('lists what the user deleted (JSON and a table), and restores it by id', async () => {
    fs.writeFileSync(at('a.txt'), 'a');
    expect((await dave.fetch('/api/resources/a.txt', { method: 'DELETE' })).status).toBe(204);
    const [item] = await ls();
    expect(item).toMatchObject({ name: 'a.txt', path: '/a.txt', size: 1, isDir: false });
    const human = await fmCli('trash', 'ls', '--user', 'dave');
    expect(human.stdout).toMatch(/ID\s+NAME\s+PATH\s+DELETED\s+SIZE/);
    expect(human.stdout).toContain(item.id);

    fs.writeFileSync(at('a.txt'), 'taken');
    const clash = await fmCli('trash', 'restore', item.id);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('exists');
    const r = await fmCli('trash', 'restore', item.id, '--rename');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('/a (1).txt');
    expect(fs.readFileSync(at('a (1).txt'), 'utf8')).toBe('a');
    expect(await ls()).toEqual([]);
  });

  it('rm deletes one item for good, empty all of them; an unknown id fails', async () => {
    for (const n of ['x.txt', 'y.txt', 'z.txt']) {
      fs.writeFileSync(at(n), n);
      await dave.fetch(`/api/resources/${n}`, { method: 'DELETE' });
    }
    const x = (await ls()).find((i) => i.name === 'x.txt')!;
    expect((await fmCli('trash', 'rm', x.id, '--yes')).code).toBe(0);
    expect((await ls()).map((i) => i.name).sort()).toEqual(['y.txt', 'z.txt']);
    const e = await fmCli('trash', 'empty', '--user', 'dave', '--yes');
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain('deleted 2 item(s)');
    expect(await ls()).toEqual([]);
    const missing = await fmCli('trash', 'rm', x.id, '--yes');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such item');
  });

  it('fm config set --trash-retention sets the retention; 0 turns the trash off', async () => {
    expect((await fmCli('config', 'set', '--trash-retention', '7d')).code).toBe(0);
    expect((await fmCli('config', 'show', '--json')).stdout).toContain('"trashRetention": 604800');
    expect((await fmCli('config', 'set', '--trash-retention', '0')).code).toBe(0);
    fs.writeFileSync(at('now.txt'), 'n');
    expect((await dave.fetch('/api/resources/now.txt', { method: 'DELETE' })).status).toBe(204);
    expect(fs.existsSync(at('now.txt'))).toBe(false);
    expect(await ls()).toEqual([]);
    const bad = await fmCli('config', 'set', '--trash-retention', 'soon');
    expect(bad.code).toBe(2);
    expect((await fmCli('config', 'set', '--trash-retention', '30d')).code).toBe(0);
  });
});
