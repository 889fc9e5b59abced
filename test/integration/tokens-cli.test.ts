/** `fm tokens add|ls|rm` on the database of a running server: what the CLI makes works over HTTP at once, and ends at once. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessTokenDto, CreatedAccessToken } from '../../src/api/tokens.ts';
import { runFm } from '../helpers/cli.ts';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { PERMS } from './share-helpers.ts';

let fm: FmServer;
const fmCli = (...args: string[]) => runFm(['--database', fm.dbFile, ...args]);
const bearer = (token: string, pathname: string, init: RequestInit = {}) =>
  fetch(`${fm.url}${pathname}`, { ...init, headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  fm = await startFm();
  fs.mkdirSync(path.join(fm.root, 'carol/photos'), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'carol/photos/p.txt'), 'photo');
  fs.writeFileSync(path.join(fm.root, 'carol/notes.txt'), 'notes');
  await createUser(await adminClient(fm), fm, 'carol', { scope: '/carol', perm: PERMS });
});
afterAll(async () => {
  await fm?.stop();
});

describe('fm tokens', () => {
  it('adds a read-only token limited to a folder that the running server accepts at once', async () => {
    const r = await fmCli('tokens', 'add', '--user', 'carol', '--name', 'photo backup', '--read-only', '--expires', '90d', '--path', 'photos/', '--json');
    expect(r.code, r.stderr).toBe(0);
    const made = JSON.parse(r.stdout) as CreatedAccessToken;
    expect(made).toMatchObject({ name: 'photo backup', readOnly: true, path: '/photos', username: 'carol' });
    expect(made.expires - made.created).toBe(90 * 86400);
    const listing = (await (await bearer(made.token, '/api/resources/')).json()) as { items: { name: string }[] };
    expect(listing.items.map((i) => i.name)).toEqual(['p.txt']);
    expect((await bearer(made.token, '/api/resources/new.txt', { method: 'POST' })).status).toBe(403);
  });

  it('prints only the token for humans, and lists without secrets', async () => {
    const r = await fmCli('tokens', 'add', '--user', 'carol', '--name', 'sync');
    expect(r.code, r.stderr).toBe(0);
    const token = r.stdout.trim();
    expect(token).toMatch(/^fmpat_\S+$/);
    expect((await bearer(token, '/api/resources/notes.txt')).status).toBe(200);

    const human = await fmCli('tokens', 'ls');
    expect(human.stdout).toMatch(/^ID\s+USER\s+NAME\s+ACCESS\s+PATH\s+EXPIRES\s+LAST USED/);
    expect(human.stdout).toMatch(/sync\s+full\s+\/\s+never/);
    const list = JSON.parse((await fmCli('tokens', 'ls', '--user', 'carol', '--json')).stdout) as AccessTokenDto[];
    expect(list.map((t) => t.name).sort()).toEqual(['photo backup', 'sync']);
    // The secret is base64url and may hold '_' itself: cut the known prefix and id off instead of splitting.
    const sync = list.find((t) => t.name === 'sync')!;
    expect(token.startsWith(`fmpat_${sync.id}_`)).toBe(true);
    expect(JSON.stringify(list)).not.toContain(token.slice(`fmpat_${sync.id}_`.length));
    expect(JSON.stringify(list)).not.toMatch(/secretHash|epoch/);
  });

  it('removes a token; the running server refuses it at once', async () => {
    const made = JSON.parse((await fmCli('tokens', 'add', '--user', 'carol', '--name', 'doomed', '--json')).stdout) as CreatedAccessToken;
    expect((await bearer(made.token, '/api/resources/')).status).toBe(200);
    const rm = await fmCli('tokens', 'rm', made.id, '--yes');
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`deleted token ${made.id}`);
    expect((await bearer(made.token, '/api/resources/')).status).toBe(401);
    expect((await fmCli('tokens', 'rm', made.id, '--yes')).code).toBe(1);
  });

  it('refuses bad options with exit 1 and a message naming the option', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--name', 'x', '--expires', '2y'], /--expires/],
      [['--name', 'x', '--expires', '500d'], /--expires: must be at most 366 days/],
      [['--name', 'x', '--path', '../elsewhere'], /--path: must not contain \.\./],
      [['--name', ''], /--name/],
    ];
    for (const [args, text] of cases) {
      const r = await fmCli('tokens', 'add', '--user', 'carol', ...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(text);
    }
    expect((await fmCli('tokens', 'add', '--user', 'nobody', '--name', 'x')).stderr).toContain('nobody');
  });
});
