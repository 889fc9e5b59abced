/**
 * The bubblewrap sandbox of commands and hooks, through a real `fm serve` and real bwrap: one
 * test per finding of the review that escaped the argument checks (links made inside, fm's
 * database, other users' folders, the network, bundled options, dd, curl file:// and .curlrc,
 * `ln; cat` in shell mode, fork bombs and endless writers), plus rules, read-only scopes and
 * hooks. Most tests also run the same attack through `bash -c` (forced into the allowlist by
 * the admin), which the argument checks cannot see into: there the sandbox is the only wall.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive } from '../helpers/processes.ts';
import { adminClient, Client, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { expectRefused, runCommand, setSettings, sleepPids, waitFor, type WsResult } from './exec-helpers.ts';

const PASSWORD = 'a-long-test-password-1';
const COMMANDS = ['mkdir', 'ln', 'grep', 'cat', 'ls', 'cp', 'sort', 'dd', 'curl', 'echo', 'yes', 'sleep', 'wc', 'bash'];
/** A fork bomb for the limit test (see there). */
const BOMB = 'b(){ if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep 987301; }; b 9';
const RW = { execute: true, create: true, rename: true, modify: true, delete: true, download: true, share: false, admin: false };

/** Creates a user whose allowlist may hold launchers (the admin forces them), and logs in. */
async function createForced(admin: Client, fm: FmServer, username: string, data: Record<string, unknown>): Promise<Client> {
  const res = await admin.fetch('/api/users?force=true', {
    method: 'POST',
    json: { what: 'user', which: [], current_password: fm.adminPassword, data: { username, password: PASSWORD, ...data } },
  });
  if (res.status !== 201) throw new Error(`create ${username}: ${res.status} ${await res.text()}`);
  const client = new Client(fm.url);
  await client.login(username, PASSWORD);
  return client;
}

/** Single-quotes a value for the bash -c scripts below. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A bash -c line as fm's parser reads it: the script is one argument. */
const bash = (script: string) => `bash -c ${q(script)}`;

function output(r: WsResult): string {
  return r.lines.join('\n');
}

describe('the command sandbox', () => {
  let base: string;
  let root: string;
  let dataDir: string;
  let db: string;
  let outside: string;
  let fm: FmServer;
  let admin: Client;
  let alice: Client;
  let reader: Client;
  let aliceHome: string;

  beforeAll(async () => {
    // base/srv/root is served; base/data holds the database: from a folder three levels down in
    // alice's scope, ../../../data names the scope's own "data", and from the scope itself fm's.
    base = tempDir('fm-sandbox-');
    root = path.join(base, 'srv', 'root');
    dataDir = path.join(base, 'data');
    db = path.join(dataDir, 'fm.db');
    outside = path.join(base, 'outside');
    for (const d of [root, dataDir, outside]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'secret.txt'), 'TOPSECRET-DATA\n');
    fm = await startFm({ root, home: base, args: ['--database', db] });
    admin = await adminClient(fm);
    aliceHome = path.join(root, 'alice');
    fs.mkdirSync(path.join(aliceHome, 'a', 'b', 'c'), { recursive: true });
    fs.mkdirSync(path.join(aliceHome, 'secret', 'pub'), { recursive: true });
    fs.writeFileSync(path.join(aliceHome, 'a.txt'), 'b\na\nb\n');
    fs.writeFileSync(path.join(aliceHome, 'secret', 'key.txt'), 'KEY-HIDDEN\n');
    fs.writeFileSync(path.join(aliceHome, 'secret', 'pub', 'p.txt'), 'PUBLIC-OK\n');
    fs.mkdirSync(path.join(root, 'bob'));
    fs.writeFileSync(path.join(root, 'bob', 'bob.txt'), 'BOB-PRIVATE\n');
    fs.mkdirSync(path.join(root, 'reader'));
    alice = await createForced(admin, fm, 'alice', {
      scope: '/alice',
      perm: RW,
      commands: COMMANDS,
      rules: [
        { regex: false, allow: false, path: '/secret' },
        { regex: false, allow: true, path: '/secret/pub' },
      ],
    });
    await createForced(admin, fm, 'bob', { scope: '/bob', perm: RW, commands: COMMANDS });
    reader = await createForced(admin, fm, 'reader', {
      scope: '/reader',
      perm: { ...RW, create: false, rename: false, modify: false, delete: false },
      commands: COMMANDS,
    });
    await setSettings(admin, { enableExec: true, shell: [] });
  });

  afterAll(async () => {
    await fm?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  const run = (folder: string, line: string, client = alice) => runCommand(fm, `/api/command${folder}`, line, { token: client.token });

  it('SANDBOX: ln -s ../../../data ../../../l from a nested folder makes a link that leads nowhere (not inside, and the API refuses it)', async () => {
    const made = await run('/a/b/c', 'ln -s ../../../data ../../../l');
    expect(made.final, output(made)).toEqual({ type: 'exit', code: 0 });
    // On the host the link does point at fm's data folder: the argument checks let it through.
    expect(fs.readlinkSync(path.join(aliceHome, 'l'))).toBe('../../../data');
    expect(fs.realpathSync(path.join(aliceHome, 'l'))).toBe(fs.realpathSync(dataDir));

    const grep = await run('/', 'grep -R -a -l -e TOPSECRET -e SQLite .');
    expect(
      grep.lines.filter((l) => !/^grep: .*No such file/.test(l)),
      output(grep),
    ).toEqual([]);
    const through = await run('/', bash('cat l/secret.txt l/fm.db; ls l/'));
    expect(output(through)).toMatch(/No such file or directory/);
    expect(output(through)).not.toMatch(/TOPSECRET|SQLite/);

    for (const url of ['/api/resources/l', '/api/resources/l/secret.txt', '/api/raw/l/secret.txt']) {
      const res = await alice.fetch(url);
      expect([403, 404], url).toContain(res.status);
      expect(await res.text()).not.toContain('TOPSECRET');
    }
  });

  it('SANDBOX: an absolute link made inside leads nowhere either', async () => {
    expectRefused(await run('/', `ln -s ${dataDir} abs`), /absolute path/);
    const r = await run('/', bash(`ln -s ${q(dataDir)} abs && cat abs/secret.txt abs/fm.db`));
    expect(fs.readlinkSync(path.join(aliceHome, 'abs'))).toBe(dataDir);
    expect(output(r)).toMatch(/No such file or directory/);
    expect(output(r)).not.toMatch(/TOPSECRET|SQLite/);
    expect((await alice.fetch('/api/resources/abs')).status).toBe(403);
  });

  it("SANDBOX: fm's database, its -wal and -shm and its data folder cannot be read (cat, grep -R on their paths)", async () => {
    expect(fs.existsSync(`${db}-wal`)).toBe(true);
    expectRefused(await run('/', `cat ${db}`), /absolute path/);
    const r = await run('/', bash(`cat ${db} ${db}-wal ${db}-shm; grep -R -a -c SQLite ${dataDir}; ls -a ${dataDir} ${base}`));
    expect(output(r)).toMatch(/No such file or directory/);
    expect(output(r)).not.toMatch(/SQLite|TOPSECRET/);
    expect(r.lines.filter((l) => /^(secret\.txt|fm\.db.*|data)$/.test(l))).toEqual([]);
  });

  it("SANDBOX: another user's folder is not there", async () => {
    const r = await run('/', bash(`ls -A ..; cat ../bob/bob.txt ${root}/bob/bob.txt; grep -R -a BOB-PRIVATE ${root}`));
    expect(r.lines[0]).toBe('alice');
    expect(r.lines.filter((l) => /^(bob|reader)$/.test(l))).toEqual([]);
    expect(output(r)).toMatch(/bob\.txt: No such file or directory/);
    expect(output(r)).not.toContain('BOB-PRIVATE');
  });

  it('SANDBOX: /etc holds only what programs need (no /etc/shadow, no private keys); HOME is a fresh folder outside the scope', async () => {
    const r = await run('/', bash('cat /etc/shadow; ls -A /etc/ssl; echo "home=$HOME"; ls -A "$HOME" | wc -l; id -u'));
    expect(output(r)).toMatch(/\/etc\/shadow: No such file or directory/);
    expect(r.lines).not.toContain('private');
    expect(r.lines).toContain('home=/tmp/home');
    expect(r.lines).toContain('0');
    // Programs that need /etc still work.
    expect((await run('/', bash('ls -l a.txt | grep -c root'))).lines).toEqual(['1']);
  });

  it('SANDBOX: no network by default; the network when the admin allows it', async () => {
    const port = new URL(fm.url).port;
    const curl = `curl -sS -m 5 http://127.0.0.1:${port}/health`;
    const off = await run('/', curl);
    expect(off.final?.code, output(off)).not.toBe(0);
    expect(output(off)).not.toContain('"status"');
    const tcp = await run('/', bash(`echo > /dev/tcp/127.0.0.1/${port} && echo connected`));
    expect(tcp.lines).not.toContain('connected');
    await setSettings(admin, { execNetwork: true });
    try {
      const on = await run('/', curl);
      expect(on.final, output(on)).toEqual({ type: 'exit', code: 0 });
      expect(on.lines).toEqual(['{"status":"OK"}']);
    } finally {
      await setSettings(admin, { execNetwork: false });
    }
  });

  it('SANDBOX: cp -vt/abs, sort -uo/abs, dd and curl file:// cannot reach outside the scope', async () => {
    // The argument checks (second layer) catch the bundled options, dd's operands and file: URLs.
    expectRefused(await run('/', `cp -vt${outside} a.txt`), /absolute path/);
    expectRefused(await run('/', `sort -uo${outside}/sorted.txt a.txt`), /absolute path/);
    expectRefused(await run('/', `dd if=${db} of=dd-copy`), /absolute path/);
    expectRefused(await run('/', `dd if=a.txt of=${outside}/dd-out`), /absolute path/);
    expectRefused(await run('/', 'curl file:///etc/passwd'), /absolute path/);
    expectRefused(await run('/', `curl -o copy file://${db}`), /absolute path/);
    // The sandbox holds where the checks cannot look.
    const r = await run(
      '/',
      bash(
        `cp -vt ${outside} a.txt; sort -uo ${outside}/sorted.txt a.txt; dd if=${db} of=dd-copy; dd if=a.txt of=${outside}/dd-out; curl -sS -o curl-copy file://${db}; curl -sS file:///etc/shadow`,
      ),
    );
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(aliceHome, 'curl-copy'))).toBe(false);
    expect(fs.existsSync(path.join(aliceHome, 'dd-copy')) ? fs.statSync(path.join(aliceHome, 'dd-copy')).size : 0).toBe(0);
    expect(output(r)).not.toMatch(/^root:/m);
  });

  it("SANDBOX: an uploaded .curlrc is never read (HOME is not the user's folder)", async () => {
    const curlrc = 'url = "file:///etc/passwd"\noutput = "curlrc-was-read.txt"\n';
    expect((await alice.fetch('/api/resources/.curlrc', { method: 'POST', body: curlrc })).status).toBe(200);
    const r = await run('/', 'curl -sS -m 2 -o fetched.txt http://127.0.0.1:9/');
    expect(r.final?.code, output(r)).not.toBe(0);
    expect(fs.existsSync(path.join(aliceHome, 'curlrc-was-read.txt'))).toBe(false);
    // The control: with HOME pointed at the folder, curl does read it (so the test above can fail).
    await run('/', bash('HOME=$PWD curl -sS -m 2 -o fetched.txt http://127.0.0.1:9/'));
    expect(fs.readFileSync(path.join(aliceHome, 'curlrc-was-read.txt'), 'utf8')).toMatch(/^root:/);
  });

  it('SANDBOX: in shell mode, `ln …; cat …` on one line cannot escape', async () => {
    await setSettings(admin, { shell: ['sh', '-c'] });
    try {
      // The cat's argument is checked before ln makes the link, so the checks let it through.
      const r = await run('/a/b/c', 'ln -s ../../../data ../../../l2; cat ../../../l2/secret.txt');
      expect(fs.readlinkSync(path.join(aliceHome, 'l2'))).toBe('../../../data');
      expect(r.final?.type, output(r)).toBe('exit');
      expect(r.final?.code).not.toBe(0);
      expect(output(r)).toMatch(/No such file or directory/);
      expect(output(r)).not.toContain('TOPSECRET');
    } finally {
      await setSettings(admin, { shell: [] });
    }
  });

  it('SANDBOX: a folder a rule denies is not there inside; a sub-folder an allow rule opens is', async () => {
    const r = await run('/', bash('ls -A secret; cat secret/key.txt; cat secret/pub/p.txt; grep -R -a -l KEY-HIDDEN . secret'));
    expect(r.lines[0]).toBe('pub');
    expect(r.lines).toContain('PUBLIC-OK');
    expect(output(r)).not.toContain('KEY-HIDDEN');
    expect(output(r)).toMatch(/secret\/key\.txt: No such file or directory/);
  });

  it('SANDBOX: commands are refused with a clear message for users with regular-expression rules', async () => {
    const res = await admin.fetch('/api/users?force=true', {
      method: 'POST',
      json: {
        what: 'user',
        which: [],
        current_password: fm.adminPassword,
        data: {
          username: 'regexer',
          password: PASSWORD,
          scope: '/reader',
          perm: RW,
          commands: ['ls'],
          rules: [{ regex: true, allow: false, regexp: { raw: '\\.key$' } }],
        },
      },
    });
    expect(res.status).toBe(201);
    const regexer = new Client(fm.url);
    await regexer.login('regexer', PASSWORD);
    expectRefused(await run('/', 'ls', regexer), /regular-expression rules/);
  });

  it('SANDBOX: a user without create, rename, modify and delete gets the scope read-only', async () => {
    const r = await run('/', bash('echo x > new.txt; mkdir d; ls -A'), reader);
    expect(output(r)).toMatch(/Read-only file system/);
    expect(fs.readdirSync(path.join(root, 'reader'))).toEqual([]);
    // A user holding all four writes (the link tests above wrote too).
    const w = await run('/', bash('echo x > written.txt && cat written.txt'));
    expect(w.lines).toEqual(['x']);
  });

  it('SANDBOX: closing the socket kills the whole sandbox, processes that left the session included', async () => {
    let pids: number[] = [];
    await runCommand(fm, '/api/command/', bash('setsid sleep 987311 & (sleep 987312 &) ; sleep 987313'), {
      token: alice.token,
      onOpen: (ws) => {
        const all = () => ['987311', '987312', '987313'].flatMap((a) => sleepPids(a));
        void waitFor(() => (pids = all()).length === 3, 'three sleeps').then(() => ws.terminate());
      },
    });
    expect(pids).toHaveLength(3);
    await waitFor(() => pids.every((p) => !alive(p)), 'every sleep to be killed');
  });

  describe('limits', () => {
    afterAll(async () => {
      await setSettings(admin, { shell: [], execMaxProcesses: 128, execMaxFileSize: 1024 ** 3, execMaxMemory: 1024 ** 3 });
    });

    it('SANDBOX: a fork bomb is stopped at the process limit, and nothing of it survives', async () => {
      await setSettings(admin, { execMaxProcesses: 16 });
      // Every process forks two until depth 9 (1023 in all): a bomb, bounded so that a machine
      // without a pids cgroup (where only a poll stops it) cannot be taken down by the test.
      const r = await run('/', bash(BOMB));
      expect(r.final, output(r)).toMatchObject({ type: 'exit', reason: 'process limit' });
      expect(r.lines).toContain('fm: the command was stopped: process limit reached');
      await waitFor(() => sleepPids('987301').length === 0, 'the sandbox to be gone');
      await waitFor(() => bombs().length === 0, 'every process of the bomb to be gone');
    });

    it('SANDBOX: an endless writer (yes > f, dd if=/dev/zero) is stopped at the file size limit', async () => {
      await setSettings(admin, { execMaxFileSize: 1024 * 1024, shell: ['sh', '-c'] });
      const yes = await run('/', 'yes > endless.txt');
      // 153 = 128 + SIGXFSZ.
      expect(yes.final, output(yes)).toMatchObject({ type: 'exit', code: 153 });
      expect(fs.statSync(path.join(aliceHome, 'endless.txt')).size).toBe(1024 * 1024);
      const dd = await run('/', bash('dd if=/dev/zero of=zeros.bin bs=64k'));
      expect(dd.final, output(dd)).toMatchObject({ type: 'exit', code: 153 });
      expect(fs.statSync(path.join(aliceHome, 'zeros.bin')).size).toBe(1024 * 1024);
    });

    it('SANDBOX: a program that grabs memory fails at the memory limit', async () => {
      await setSettings(admin, { execMaxMemory: 256 * 1024 * 1024 });
      const r = await run('/', bash('a=$(head -c 400000000 /dev/zero | tr "\\0" a); echo "got ${#a}"'));
      expect(output(r)).toMatch(/cannot allocate/);
      expect(output(r)).not.toMatch(/got 400000000/);
    });
  });

  describe('hooks', () => {
    afterAll(async () => {
      await setSettings(admin, { commands: {} });
    });

    it('SANDBOX: hooks run sandboxed: the served root read-write with FILE and SCOPE, but not the database', async () => {
      const script = `cat "$FILE" > "$SCOPE/hook-saw.txt"; ls -A ${root} >> "$SCOPE/hook-saw.txt"; cat ${db} ${dataDir}/secret.txt >> "$SCOPE/hook-saw.txt" 2>&1; echo "home=$HOME" >> "$SCOPE/hook-saw.txt"`;
      await setSettings(admin, { commands: { after_upload: [`/bin/sh -c ${q(script)}`] } });
      expect((await alice.fetch('/api/resources/uploaded.txt', { method: 'POST', body: 'UPLOADED-BY-ALICE\n' })).status).toBe(200);
      const saw = fs.readFileSync(path.join(aliceHome, 'hook-saw.txt'), 'utf8');
      expect(saw).toContain('UPLOADED-BY-ALICE');
      expect(saw.split('\n')).toEqual(expect.arrayContaining(['alice', 'bob', 'reader']));
      expect(saw).toMatch(/No such file or directory/);
      expect(saw).not.toMatch(/SQLite|TOPSECRET/);
      expect(saw).toContain('home=/tmp/home');
    });
  });
});

describe('the command sandbox with the database inside the root', () => {
  let root: string;
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    root = tempDir('fm-sandbox-inside-');
    fm = await startFm({ root, args: ['--database', path.join(root, '.fm', 'fm.db')] });
    admin = await adminClient(fm);
    await setSettings(admin, { enableExec: true });
    const res = await admin.fetch('/api/users/1?force=true', {
      method: 'PUT',
      json: { what: 'user', which: ['commands'], current_password: fm.adminPassword, data: { id: 1, commands: ['bash'] } },
    });
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    await fm?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("SANDBOX: fm's files inside the mounted tree are masked (database, -wal, -shm: empty; cache: an empty folder)", async () => {
    const dbFile = path.join(root, '.fm', 'fm.db');
    expect(fs.statSync(dbFile).size).toBeGreaterThan(0);
    expect(fs.existsSync(`${dbFile}-wal`)).toBe(true);
    const r = await runCommand(
      fm,
      '/api/command/',
      bash('wc -c < .fm/fm.db; wc -c < .fm/fm.db-wal; wc -c < .fm/fm.db-shm; ls -A .fm/cache 2>/dev/null | wc -l; grep -R -a -l SQLite . ; echo end'),
      {
        token: admin.token,
      },
    );
    expect(r.lines, output(r)).toEqual(['0', '0', '0', '0', 'end']);
  });
});

/** Pids of the fork bomb's bash processes (their command line holds the bomb). */
function bombs(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(BOMB) && alive(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
