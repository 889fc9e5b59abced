/**
 * Turning command execution on needs a working sandbox: without bubblewrap (simulated by a PATH
 * without bwrap, where fm looks for it) the CLI, `fm serve` and the settings API refuse and name
 * the Debian package; `fm serve --exec-unsandboxed` is the only way around, announced loudly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, tempDir } from '../helpers/server.ts';
import { spawnFm, type SpawnedFm } from '../helpers/spawn.ts';
import { putSettings, runCommand, setSettings } from './exec-helpers.ts';

describe('exec without bubblewrap', () => {
  let home: string;
  let db: string;
  /** A PATH with no bwrap in it (fm finds node by its own path, not through PATH). */
  let noBwrap: string;
  const servers: SpawnedFm[] = [];

  beforeAll(() => {
    home = tempDir('fm-nobwrap-');
    db = path.join(home, 'fm.db');
    noBwrap = tempDir('fm-empty-path-');
  });

  afterAll(async () => {
    for (const s of servers) await s.stop();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(noBwrap, { recursive: true, force: true });
  });

  it('SANDBOX: fm config set --exec refuses without bubblewrap, naming the Debian package', async () => {
    expect((await runFm(['config', 'init', '-d', db])).code).toBe(0);
    const refused = await runFm(['config', 'set', '--exec', '-d', db], { env: { PATH: noBwrap } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/bwrap was not found/);
    expect(refused.stderr).toMatch(/install the Debian package bubblewrap/);
    expect(refused.stderr).toMatch(/--exec-unsandboxed/);
    expect(JSON.parse((await runFm(['config', 'cat', '--json', '-d', db])).stdout).enableExec).toBe(false);
    // With bwrap where fm looks, the same command works.
    const ok = await runFm(['config', 'set', '--exec', '-d', db]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('SANDBOX: fm config set sets the network and the limits of the sandbox', async () => {
    const set = await runFm([
      'config',
      'set',
      '--exec-network',
      '--exec-max-memory',
      '256MiB',
      '--exec-max-file-size',
      '1MiB',
      '--exec-max-processes',
      '9',
      '-d',
      db,
    ]);
    expect(set.code, set.stderr).toBe(0);
    const s = JSON.parse((await runFm(['config', 'cat', '--json', '-d', db])).stdout);
    expect(s).toMatchObject({ execNetwork: true, execMaxMemory: 256 * 1024 ** 2, execMaxFileSize: 1024 ** 2, execMaxProcesses: 9 });
    expect((await runFm(['config', 'cat', '-d', db])).stdout).toMatch(/^exec max processes:\s+9$/m);
    expect((await runFm(['config', 'set', '--exec-max-processes', 'many', '-d', db])).code).toBe(2);
    expect((await runFm(['config', 'set', '--no-exec-network', '--exec-max-processes', '128', '-d', db])).code).toBe(0);
  });

  it('SANDBOX: fm serve with exec on refuses to start without bubblewrap; --exec-unsandboxed starts it, with a warning', async () => {
    await expect(spawnFm({ home, root: path.join(home, 'root'), env: { PATH: noBwrap } })).rejects.toThrow(
      /exited with 1[\s\S]*install the Debian package bubblewrap/,
    );
    const fm = await spawnFm({ home, root: path.join(home, 'root'), env: { PATH: noBwrap }, args: ['--exec-unsandboxed'] });
    servers.push(fm);
    expect(fm.output()).toMatch(/warning: --exec-unsandboxed: commands and hooks run WITHOUT a sandbox/);
    // A user added by the CLI while this first start stores its admin: the two claim distinct ids (storage/repos/users.ts).
    expect((await runFm(['users', 'add', 'runner', 'a-long-test-password-1', '--perm-execute', '--commands', 'printenv', '-d', db])).code).toBe(0);
    const runner = await loginAs(fm, 'runner');
    const r = await runCommand(fm, '/api/command/', 'printenv HOME', { token: runner });
    // Unconfined, as before the sandbox: HOME is the user's folder.
    expect(r.lines).toEqual([fs.realpathSync(path.join(home, 'root'))]);
  });

  it('SANDBOX: PUT /api/settings turning exec on answers 400 without bubblewrap', async () => {
    const fm = await spawnFm({ env: { PATH: noBwrap } });
    servers.push(fm);
    const admin = await adminClient(fm);
    const res = await putSettings(admin, { enableExec: true });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/enableExec: .*install the Debian package bubblewrap/);
    // Other settings still save.
    await setSettings(admin, { signup: false });
    expect((await admin.json<{ enableExec: boolean }>('/api/settings')).enableExec).toBe(false);
  });
});

async function loginAs(fm: SpawnedFm, username: string): Promise<string> {
  const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username, password: 'a-long-test-password-1' }) });
  expect(res.status).toBe(200);
  return res.text();
}
