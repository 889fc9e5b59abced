/**
 * One door to the disk (SYML, AUTHZ, DOS):
 * - rules apply to the real location of every write: a rule-denied folder cannot be written
 *   through a link inside the scope, by any write path (PUT, POST, mkdir, copy, move, tus);
 * - one function places files, so PUT, POST and tus follow one symlink policy and one set of
 *   conflict rules (parallel PUTs: the last writer wins; parallel POSTs: one wins, the rest 409);
 * - a delete opens its folder after the before-hook: a folder renamed away and replaced by an
 *   escaping link while the hook runs deletes nothing (a real race, paused by a hook);
 * - temporary files of a write cut by kill -9 are removed when fm starts again;
 * - regex rules cannot stall the server, and patterns RE2 cannot run are refused when saved.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { quote } from '../../src/services/exec/plan.ts';
import { adminClient, createUser, PROJECT_ROOT, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';
import { spawnFm } from '../helpers/spawn.ts';
import { listTree, makeTree, rawRequest } from '../helpers/files.ts';
import { Tus } from './tus-helpers.ts';

const WAIT_HOOK = quote(path.join(PROJECT_ROOT, 'test', 'fixtures', 'hooks', 'wait-for-go.sh'));
const PERMS = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

let fm: FmServer;
let admin: Client;
let alice: Client;
let scope: string;

const send = (method: string, p: string, body?: string) => rawRequest(fm.url, p, { method, headers: { 'X-Auth': alice.token }, body });
const partials = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('.fm-partial-'));

async function setSettings(changes: Record<string, unknown>) {
  const res = await admin.fetch('/api/settings', { method: 'PUT', json: changes });
  expect(res.status, await res.clone().text()).toBe(200);
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  scope = path.join(fm.root, 'alice');
  fs.mkdirSync(scope);
  alice = (
    await createUser(admin, fm, 'alice', {
      scope: '/alice',
      perm: PERMS,
      rules: [{ regex: false, allow: false, path: '/denied', regexp: { raw: '' } }],
    })
  ).client;
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});
beforeEach(() => {
  fs.rmSync(scope, { recursive: true, force: true });
  fs.rmSync(path.join(fm.root, 'bob'), { recursive: true, force: true });
  makeTree(fm.root, { bob: { victim: { 'secret.txt': 'bob secret' }, p: { victim: { 'secret.txt': 'bob deep secret' } } } });
  makeTree(scope, {
    'ok.txt': 'alice ok',
    denied: { 'x.txt': 'denied content' },
    'to-denied': { link: 'denied' },
    'to-denied-file': { link: 'denied/x.txt' },
    'in-file': { link: 'ok.txt' },
    dangling: { link: 'missing.txt' },
  });
});

describe('rules apply to the real location of every write', () => {
  it('no write path reaches a rule-denied folder through a link inside the scope', async () => {
    const tus = new Tus(alice, fm.url);
    const attempts: Array<[string, () => Promise<{ status: number }>]> = [
      ['PUT new file', () => send('PUT', '/api/resources/to-denied/new.txt', 'x')],
      ['PUT existing file', () => send('PUT', '/api/resources/to-denied/x.txt', 'x')],
      ['PUT through a file link', () => send('PUT', '/api/resources/to-denied-file', 'x')],
      ['POST file', () => send('POST', '/api/resources/to-denied/post.txt', 'x')],
      ['POST deep file', () => send('POST', '/api/resources/to-denied/a/b/deep.txt', 'x')],
      ['POST folder', () => send('POST', '/api/resources/to-denied/newdir/')],
      ['copy into', () => send('PATCH', `/api/resources/ok.txt?action=copy&destination=${encodeURIComponent('/to-denied/copy.txt')}`)],
      ['move into', () => send('PATCH', `/api/resources/ok.txt?action=rename&destination=${encodeURIComponent('/to-denied/moved.txt')}`)],
      ['tus create', () => tus.create('/to-denied/t.bin', 3)],
      ['tus through a file link', () => tus.create('/to-denied-file', 3, { override: true })],
    ];
    for (const [what, attempt] of attempts) expect.soft((await attempt()).status, what).toBe(403);
    expect(listTree(path.join(scope, 'denied'))).toEqual(['x.txt']);
    expect(fs.readFileSync(path.join(scope, 'denied', 'x.txt'), 'utf8')).toBe('denied content');
    expect(fs.readFileSync(path.join(scope, 'ok.txt'), 'utf8')).toBe('alice ok');
  });
});

describe('one function places every file: one symlink policy, one set of conflict rules', () => {
  it('PUT, POST and tus all write through a link inside the scope to its target, keeping the link', async () => {
    expect((await send('PUT', '/api/resources/in-file', 'by put')).status).toBe(200);
    expect(fs.readFileSync(path.join(scope, 'ok.txt'), 'utf8')).toBe('by put');
    expect((await send('POST', '/api/resources/in-file?override=true', 'by post')).status).toBe(200);
    expect(fs.readFileSync(path.join(scope, 'ok.txt'), 'utf8')).toBe('by post');
    const tus = new Tus(alice, fm.url);
    expect((await tus.upload('/in-file', Buffer.from('by tus'), 6, true)).status).toBe(204);
    expect(fs.readFileSync(path.join(scope, 'ok.txt'), 'utf8')).toBe('by tus');
    expect(fs.lstatSync(path.join(scope, 'in-file')).isSymbolicLink()).toBe(true);
    // Without override the name is taken, for every path alike.
    expect((await send('POST', '/api/resources/in-file', 'x')).status).toBe(409);
    expect((await tus.create('/in-file', 1)).status).toBe(409);
  });

  it('none writes through a dangling link', async () => {
    const tus = new Tus(alice, fm.url);
    expect((await send('PUT', '/api/resources/dangling', 'x')).status).toBe(403);
    expect((await send('POST', '/api/resources/dangling?override=true', 'x')).status).toBe(403);
    expect((await tus.create('/dangling', 1, { override: true })).status).toBe(403);
    expect(fs.existsSync(path.join(scope, 'missing.txt'))).toBe(false);
  });

  it('temporary files of writes in progress cannot be read, written or planted by name', async () => {
    makeTree(scope, { '.fm-partial-0123abcd-00': 'half an upload', d: {} });
    for (const [method, p] of [
      ['GET', '/api/raw/.fm-partial-0123abcd-00'],
      ['GET', '/api/resources/.fm-partial-0123abcd-00'],
      ['PUT', '/api/resources/.fm-partial-0123abcd-00'],
      ['POST', '/api/resources/d/.fm-partial-0123abcd-01'],
      ['POST', '/api/resources/.fm-partial-0123abcd-02/inside.txt'],
      ['DELETE', '/api/resources/.fm-partial-0123abcd-00'],
    ]) {
      expect.soft((await send(method, p, method === 'GET' || method === 'DELETE' ? undefined : 'x')).status, `${method} ${p}`).toBe(404);
    }
    expect(fs.readdirSync(path.join(scope, 'd'))).toEqual([]);
    expect(fs.readFileSync(path.join(scope, '.fm-partial-0123abcd-00'), 'utf8')).toBe('half an upload');
  });

  it('parallel PUTs to a new name all save (the last writer wins); parallel POSTs: one creates, the others get 409', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(256 * 1024));
    const puts = await Promise.all(bodies.map((body) => send('PUT', '/api/resources/race.txt', body)));
    expect(puts.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(bodies).toContain(fs.readFileSync(path.join(scope, 'race.txt'), 'utf8'));
    const posts = await Promise.all(bodies.map((body) => send('POST', '/api/resources/race2.txt', body)));
    const statuses = posts.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...bodies.slice(1).map(() => 409)]);
    expect(bodies).toContain(fs.readFileSync(path.join(scope, 'race2.txt'), 'utf8'));
    expect(partials(scope)).toEqual([]);
  });
});

describe('SYML: a delete opens its folder only after the before-hook', () => {
  beforeAll(() => setSettings({ enableExec: true, commands: { before_delete: [WAIT_HOOK] } }));
  afterAll(() => setSettings({ enableExec: false, commands: {} }));

  /** Starts a delete, waits for the hook to pause it, runs `swap`, lets the hook finish. */
  async function deleteWhileSwapping(p: string, swap: () => void): Promise<number> {
    const marker = path.join(scope, '.hook-waiting');
    const pending = send('DELETE', `/api/resources${p}`);
    await expect.poll(() => fs.existsSync(marker), { timeout: 15_000 }).toBe(true);
    swap();
    fs.rmSync(marker);
    return (await pending).status;
  }

  it('the hook pauses a delete that then removes what it checked', async () => {
    makeTree(scope, { p: { victim: { 'a.txt': 'mine' } } });
    expect(await deleteWhileSwapping('/p/victim', () => {})).toBe(204);
    expect(fs.existsSync(path.join(scope, 'p', 'victim'))).toBe(false);
  });

  it('the parent renamed away and an escaping link put in its place: nothing is deleted', async () => {
    makeTree(scope, { p: { victim: { 'a.txt': 'mine' } } });
    const status = await deleteWhileSwapping('/p/victim', () => {
      fs.renameSync(path.join(scope, 'p'), path.join(scope, 'p-away'));
      fs.symlinkSync(path.join(fm.root, 'bob'), path.join(scope, 'p'));
    });
    expect(status).toBe(403);
    expect(fs.readFileSync(path.join(fm.root, 'bob', 'victim', 'secret.txt'), 'utf8')).toBe('bob secret');
    expect(listTree(path.join(scope, 'p-away'))).toEqual(['victim/', 'victim/a.txt']);
  });

  it('a grandparent swapped for an escaping link: nothing is deleted', async () => {
    makeTree(scope, { a: { p: { victim: { 'a.txt': 'mine' } } } });
    const status = await deleteWhileSwapping('/a/p/victim', () => {
      fs.renameSync(path.join(scope, 'a'), path.join(scope, 'a-away'));
      fs.symlinkSync(path.join(fm.root, 'bob'), path.join(scope, 'a'));
    });
    expect(status).toBe(403);
    expect(fs.readFileSync(path.join(fm.root, 'bob', 'p', 'victim', 'secret.txt'), 'utf8')).toBe('bob deep secret');
    expect(listTree(path.join(scope, 'a-away'))).toEqual(['p/', 'p/victim/', 'p/victim/a.txt']);
  });

  it('the target itself swapped for an escaping link: the link is removed, never its target', async () => {
    makeTree(scope, { p: { victim: { 'a.txt': 'mine' } } });
    const status = await deleteWhileSwapping('/p/victim', () => {
      fs.renameSync(path.join(scope, 'p', 'victim'), path.join(scope, 'p', 'victim-away'));
      fs.symlinkSync(path.join(fm.root, 'bob', 'victim'), path.join(scope, 'p', 'victim'));
    });
    expect(status).toBe(204);
    expect(fs.existsSync(path.join(scope, 'p', 'victim'))).toBe(false);
    expect(fs.readFileSync(path.join(fm.root, 'bob', 'victim', 'secret.txt'), 'utf8')).toBe('bob secret');
    expect(listTree(path.join(scope, 'p', 'victim-away'))).toEqual(['a.txt']);
  });
});

describe('regular expressions in rules', () => {
  it('(a+)+$ cannot stall the server, for a signed-in user or an anonymous share visitor', async () => {
    makeTree(scope, { pub: { 'f.txt': 'shared' } });
    await setSettings({ rules: [{ regex: true, allow: false, path: '', regexp: { raw: '(a+)+$' } }] });
    try {
      // 40 characters take a backtracking engine minutes: each answer coming back is the test.
      const long = `${'a'.repeat(40)}!`;
      expect((await send('GET', `/api/resources/${long}`)).status).toBe(404);
      const res = await alice.fetch('/api/share/pub', { method: 'POST', json: {} });
      expect(res.status).toBe(200);
      const { hash } = (await res.json()) as { hash: string };
      expect((await rawRequest(fm.url, `/api/public/share/${hash}/${long}`)).status).toBe(404);
      expect((await rawRequest(fm.url, `/api/public/share/${hash}/f.txt`)).status).toBe(200);
    } finally {
      await setSettings({ rules: [] });
    }
  });

  it('patterns RE2 cannot run are refused when saved: settings API, users API, fm rules add', async () => {
    const lookahead = { regex: true, allow: false, path: '', regexp: { raw: 'secret(?=\\.txt)' } };
    const res = await admin.fetch('/api/settings', { method: 'PUT', json: { rules: [lookahead] } });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/invalid regular expression/);
    const user = await admin.fetch('/api/users', {
      method: 'POST',
      json: {
        what: 'user',
        which: [],
        current_password: fm.adminPassword,
        data: { username: 'rex', password: 'a-long-test-password-1', rules: [{ ...lookahead, regexp: { raw: '(a)\\1' } }] },
      },
    });
    expect(user.status).toBe(400);
    const cli = await runFm(['rules', 'add', '--regex', '(?<=x)y', '--database', fm.dbFile]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/invalid regular expression/);
    expect((await admin.json<{ rules: unknown[] }>('/api/settings')).rules).toEqual([]);
  });
});

describe('temporary files of writes cut by kill -9', () => {
  it('are removed when fm starts again', async () => {
    const crashed = await spawnFm();
    const client = await adminClient(crashed);
    makeTree(crashed.root, { up: {} });
    const u = new URL(crashed.url);
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method: 'PUT',
      path: '/api/resources/up/slow.bin',
      headers: { 'X-Auth': client.token, 'Content-Length': '10000000' },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(256 * 1024, 1));
    const dir = path.join(crashed.root, 'up');
    await expect.poll(() => partials(dir).length, { timeout: 15_000 }).toBe(1);
    await crashed.kill();
    req.destroy();
    expect(partials(dir)).toHaveLength(1);
    const again = await spawnFm({ home: crashed.home, root: crashed.root });
    try {
      await expect.poll(() => partials(dir), { timeout: 15_000 }).toEqual([]);
      await expect.poll(() => again.output()).toMatch(/removed 1 temporary file/);
    } finally {
      await again.stop();
      fs.rmSync(crashed.home, { recursive: true, force: true });
    }
  });
});
