/**
 * A real sync client: rclone (the Debian package) syncs a tree of 1,000 small files up to
 * /dav/, `rclone check` finds no difference, a sync down into an empty folder gives back the
 * same bytes, and a second user's tree is invisible to the first (and the other way round).
 * The served root is on /dev/shm when there is one: every PUT fsyncs its file and folder, and
 * on a busy disk 1,000 of them would take most of the time.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';

/** More requests in flight than rclone's default 4: the server, not the client, should be the limit. */
const PARALLEL = ['--transfers', '8', '--checkers', '8'];
const PERM = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: false, download: true };

let fm: FmServer;
let shmRoot: string | undefined;
const work = tempDir('fm-rclone-');
const passwords: Record<string, string> = {};

beforeAll(async () => {
  shmRoot = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/fm-rclone-') : undefined;
  fm = await startFm({ args: ['--log', 'off', '--no-index'], root: shmRoot });
  const admin = await adminClient(fm);
  for (const name of ['alice', 'bob']) {
    fs.mkdirSync(path.join(fm.root, name));
    passwords[name] = (await createUser(admin, fm, name, { scope: `/${name}`, perm: PERM })).password;
  }
});
afterAll(async () => {
  await fm.stop();
  if (shmRoot) fs.rmSync(shmRoot, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

/** rclone's remote `<user>:` configured through the environment, in a HOME of its own. */
async function remoteEnv(user: string): Promise<NodeJS.ProcessEnv> {
  const name = user.toUpperCase();
  const obscured = (await rclone(['obscure', passwords[user]], { ...process.env, HOME: work })).out.trim();
  return {
    ...process.env,
    HOME: work,
    [`RCLONE_CONFIG_${name}_TYPE`]: 'webdav',
    [`RCLONE_CONFIG_${name}_URL`]: `${fm.url}/dav/`,
    [`RCLONE_CONFIG_${name}_VENDOR`]: 'other',
    [`RCLONE_CONFIG_${name}_USER`]: user,
    [`RCLONE_CONFIG_${name}_PASS`]: obscured,
  };
}

/** Runs rclone asynchronously (the server answers from this process). */
function rclone(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('rclone', args, { env });
    let out = '';
    let log = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      log += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, log }));
  });
}

/** 1,000 files of 0–299 random bytes in 10 × 10 folders, a few with names beyond ASCII. */
function makeTree(dir: string): void {
  for (let i = 0; i < 1000; i++) {
    const sub = path.join(dir, `d${i % 10}`, `e${Math.floor(i / 10) % 10}`);
    fs.mkdirSync(sub, { recursive: true });
    const name = i % 250 === 0 ? `ünï cödé ${i}.txt` : `f${i}.bin`;
    fs.writeFileSync(path.join(sub, name), crypto.randomBytes(i % 300));
  }
}

/** Every file under a folder, relative path → bytes. */
function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const abs = path.join(dir, rel);
    if (fs.statSync(abs).isFile()) out.set(rel, fs.readFileSync(abs));
  }
  return out;
}

describe('WebDAV: rclone', () => {
  it('syncs 1,000 files up and down byte for byte, and one user never sees another', async () => {
    const src = path.join(work, 'src');
    makeTree(src);
    const alice = await remoteEnv('alice');
    const up = await rclone(['sync', src, 'alice:tree', ...PARALLEL], alice);
    expect(up.code, up.log).toBe(0);
    const check = await rclone(['check', src, 'alice:tree', ...PARALLEL], alice);
    expect(check.code, check.log).toBe(0);
    expect(check.log).toMatch(/: 0 differences found/);
    expect(check.log).toMatch(/: 1000 matching files/);

    const down = path.join(work, 'down');
    const back = await rclone(['sync', 'alice:tree', down, ...PARALLEL], alice);
    expect(back.code, back.log).toBe(0);
    const want = readTree(src);
    const got = readTree(down);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [rel, bytes] of want) expect(got.get(rel)!.equals(bytes), rel).toBe(true);
    // What arrived on the server is the same too.
    const onServer = readTree(path.join(fm.root, 'alice', 'tree'));
    for (const [rel, bytes] of want) expect(onServer.get(rel)?.equals(bytes), rel).toBe(true);

    const bob = await remoteEnv('bob');
    const put = await rclone(['copyto', path.join(src, 'd1', 'e0', 'f1.bin'), 'bob:mine.bin'], bob);
    expect(put.code, put.log).toBe(0);
    const bobSees = await rclone(['lsf', '-R', 'bob:'], bob);
    expect(bobSees.code, bobSees.log).toBe(0);
    expect(bobSees.out.trim().split('\n')).toEqual(['mine.bin']);
    const aliceSees = await rclone(['lsf', 'alice:'], alice);
    expect(aliceSees.out.trim().split('\n')).toEqual(['tree/']);
  }, 120_000);
});
