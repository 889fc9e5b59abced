/**
 * Event hooks and the auth hook, through the real services over a real database and folder.
 * The files API's mutations (which call `hooks.around`) are written on another branch, so the
 * hook runner is exercised here directly, exactly as those routes call it.
 * EXEC class: hooks are argv-only typed events; data reaches them only through the environment
 * (GHSA-jvpw-637p-h3pw, m93h-4hw7-5qcm).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import { createServices, shutdownServices, type Services } from '../../src/services/index.ts';
import { ensureSettings } from '../../src/services/setup.ts';
import { quote } from '../../src/services/exec/plan.ts';
import { ForbiddenError } from '../../src/errors.ts';
import type { Settings } from '../../src/api/settings.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';
import type { HookContext } from '../../src/services/hooks.ts';
import { PROJECT_ROOT, tempDir } from '../helpers/server.ts';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'hooks');
const RECORD = quote(path.join(FIXTURES, 'record-env.sh'));
const FAIL = quote(path.join(FIXTURES, 'fail.sh'));
const AUTH = quote(path.join(FIXTURES, 'auth.sh'));
const PROBE = quote(path.join(FIXTURES, 'auth-probe.sh'));

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

describe('event hooks', () => {
  let home: string;
  let root: string;
  let scope: string;
  let db: Database;
  let services: Services;
  let alice: UserRecord;
  const logged: string[] = [];

  const setSettings = async (changes: Partial<Settings>) => {
    const current = await services.repos.settings.get();
    await services.repos.settings.save({ ...current, ...changes });
  };
  const hookCtx = (over: Partial<HookContext> = {}): HookContext => ({
    event: 'upload',
    user: alice,
    file: path.join(scope, 'report.txt'),
    scope,
    ...over,
  });

  beforeAll(async () => {
    home = tempDir('fm-hooks-');
    root = tempDir('fm-hooks-root-');
    scope = path.join(root, 'alice');
    fs.mkdirSync(scope);
    db = await openDatabase(path.join(home, 'fm.db'));
    const log = {
      info: (m: string) => logged.push(`info: ${m}`),
      warn: (m: string) => logged.push(`warn: ${m}`),
      error: (m: string) => logged.push(`error: ${m}`),
    };
    services = createServices(db, {
      root: fs.realpathSync(root),
      tokenLifetime: 3600,
      auth: { noauth: false, trustedProxies: [] },
      log,
      dataDir: home,
    });
    await ensureSettings(services.repos);
    alice = await services.users.create({ data: { username: 'alice', password: 'a-long-test-password-1', scope: '/alice' } });
    process.env.FM_HOOK_TEST_SECRET = 'must-not-reach-hooks';
  });

  afterAll(async () => {
    delete process.env.FM_HOOK_TEST_SECRET;
    await shutdownServices(services);
    await db.close();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  beforeEach(async () => {
    logged.length = 0;
    for (const f of fs.readdirSync(scope)) fs.rmSync(path.join(scope, f), { recursive: true, force: true });
    await setSettings({ enableExec: true, shell: [], commands: {} });
  });

  it('EXEC: hooks receive FILE, DESTINATION, SCOPE, TRIGGER and USERNAME in a scrubbed environment', async () => {
    await setSettings({ commands: { before_copy: [RECORD], after_copy: [RECORD] } });
    const file = path.join(scope, 'a.txt');
    const destination = path.join(scope, 'b.txt');
    let ran = false;
    const result = await services.hooks.around(hookCtx({ event: 'copy', file, destination }), async () => {
      ran = true;
      return 42;
    });
    expect(result).toBe(42);
    expect(ran).toBe(true);
    for (const trigger of ['before_copy', 'after_copy']) {
      const env = readEnvFile(path.join(scope, `.hook-${trigger}.env`));
      expect(env).toMatchObject({ FILE: file, DESTINATION: destination, SCOPE: scope, TRIGGER: trigger, USERNAME: 'alice' });
      expect(env.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
      expect(env.HOME).toBe('/tmp/home');
      expect(Object.keys(env).filter((k) => k.startsWith('FM_'))).toEqual([]);
      expect(JSON.stringify(env)).not.toContain('must-not-reach-hooks');
    }
  });

  it('EXEC: DESTINATION is the scope for events without a destination', async () => {
    await setSettings({ commands: { before_delete: [RECORD] } });
    await services.hooks.around(hookCtx({ event: 'delete' }), async () => undefined);
    expect(readEnvFile(path.join(scope, '.hook-before_delete.env')).DESTINATION).toBe(scope);
  });

  it('EXEC: a file name full of shell syntax reaches the hook as data only', async () => {
    await setSettings({ commands: { before_upload: [RECORD] } });
    const evil = path.join(scope, '$(touch pwned); `touch pwned2` && id > pwned3');
    await services.hooks.around(hookCtx({ file: evil }), async () => undefined);
    expect(readEnvFile(path.join(scope, '.hook-before_upload.env')).FILE).toBe(evil);
    expect(fs.readdirSync(scope).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });

  it('EXEC: a failing before_ hook blocks the operation with 403 and the first line of its stderr', async () => {
    await setSettings({ commands: { before_upload: [FAIL], after_upload: [RECORD] } });
    let ran = false;
    const err = await services.hooks
      .around(hookCtx(), async () => {
        ran = true;
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as ForbiddenError).status).toBe(403);
    expect((err as Error).message).toBe('uploads are closed today');
    expect(ran).toBe(false);
    expect(fs.existsSync(path.join(scope, '.hook-after_upload.env'))).toBe(false);
  });

  it('EXEC: a failing after_ hook is logged and does not change the result', async () => {
    await setSettings({ commands: { after_save: [FAIL] } });
    const result = await services.hooks.around(hookCtx({ event: 'save' }), async () => 'saved');
    expect(result).toBe('saved');
    expect(logged.join('\n')).toMatch(/hook after_save \(alice\).*uploads are closed today/);
  });

  it('EXEC: hook output goes to the log with the trigger and the user', async () => {
    await setSettings({ commands: { before_rename: [RECORD] } });
    await services.hooks.around(hookCtx({ event: 'rename', destination: path.join(scope, 'x') }), async () => undefined);
    expect(logged).toContain('info: hook before_rename (alice): recorded before_rename');
  });

  it('EXEC: a trailing & runs the hook in the background (its failure cannot block)', async () => {
    await setSettings({ commands: { before_upload: [`${FAIL} &`, `${RECORD} &`] } });
    let ran = false;
    await services.hooks.around(hookCtx(), async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    await waitFor(() => fs.existsSync(path.join(scope, '.hook-before_upload.env')), 'the background hook');
  });

  it('EXEC: hooks do not run while exec is disabled', async () => {
    await setSettings({ enableExec: false, commands: { before_upload: [FAIL, RECORD] } });
    expect(await services.hooks.around(hookCtx(), async () => 'ok')).toBe('ok');
    expect(fs.readdirSync(scope)).toEqual([]);
  });

  it('EXEC: a stored hook line with shell syntax is refused at run time, and a before_ hook then blocks', async () => {
    // Lines like these are refused when settings are saved; this one was written around the API.
    for (const line of [`${RECORD} $FILE`, `${RECORD}; id`, `${RECORD} "$(id)"`, `${RECORD} | ${RECORD}`]) {
      await setSettings({ commands: { before_upload: [line] } });
      const err = await services.hooks.around(hookCtx(), async () => 'ran').catch((e: unknown) => e);
      expect(err, line).toBeInstanceOf(ForbiddenError);
      expect((err as Error).message).toMatch(/before_upload hook refused/);
    }
    expect(fs.readdirSync(scope)).toEqual([]);
  });

  it('EXEC: with a configured shell, hook lines may use lists and redirections inside the scope only', async () => {
    await setSettings({ shell: ['sh', '-c'], commands: { after_upload: ['echo hooked > hook-out.txt && echo more >> hook-out.txt'] } });
    await services.hooks.around(hookCtx(), async () => undefined);
    expect(fs.readFileSync(path.join(scope, 'hook-out.txt'), 'utf8')).toBe('hooked\nmore\n');

    await setSettings({ shell: ['sh', '-c'], commands: { before_upload: ['echo x > /tmp/fm-hook-escape'] } });
    const err = await services.hooks.around(hookCtx(), async () => 'ran').catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/outside the current folder/);
    expect(fs.existsSync('/tmp/fm-hook-escape')).toBe(false);
  });

  describe('the auth hook (authMethod hook)', () => {
    const login = (username: string, password: string) => services.auth.login({ username, password, ip: '127.0.0.1', headers: {} }).catch((e: unknown) => e);

    it('EXEC (GHSA-m93h-4hw7-5qcm): runs argv-only with USERNAME and PASSWORD in a scrubbed environment', async () => {
      const s = await services.repos.settings.get();
      await services.repos.settings.save({ ...s, authMethod: 'hook', auth: { ...s.auth, command: `${AUTH} strict` } });
      const user = await login('hooked', 'right password');
      expect((user as UserRecord).username).toBe('hooked');
      expect((user as UserRecord).perm.execute).toBe(false);
      expect(await login('hooked', 'wrong password')).toBeInstanceOf(ForbiddenError);
      // Credentials full of shell syntax are only data.
      const evil = await login('$(touch pwned)', '`touch pwned2`; touch pwned3');
      expect(evil).toBeInstanceOf(ForbiddenError);
      expect(fs.readdirSync(process.cwd()).filter((f) => f.startsWith('pwned'))).toEqual([]);
    });

    it("EXEC: the auth hook runs sandboxed: neither the served root nor fm's database is there", async () => {
      const s = await services.repos.settings.get();
      const db = path.join(home, 'fm.db');
      expect(fs.existsSync(`${db}-wal`)).toBe(true);
      await services.repos.settings.save({ ...s, authMethod: 'hook', auth: { ...s.auth, command: `${PROBE} ${db} ${db}-wal ${root} ${scope}` } });
      services.auth.throttle.succeed(['user:prober', 'ip:127.0.0.1']);
      expect(((await login('prober', 'x')) as UserRecord).username).toBe('prober');
      // The probe does see what exists (its own script, system files), so it can fail.
      await services.repos.settings.save({ ...s, authMethod: 'hook', auth: { ...s.auth, command: `${PROBE} /etc/passwd` } });
      expect(await login('prober2', 'x')).toBeInstanceOf(ForbiddenError);
      await services.repos.settings.save({ ...s, authMethod: 'json' });
    });

    it('EXEC: an auth hook command with shell syntax is refused (login fails)', async () => {
      const s = await services.repos.settings.get();
      for (const command of [`${AUTH} strict; id`, `${AUTH} strict $USERNAME`, `${AUTH} strict > log`, `${AUTH} strict &`]) {
        await services.repos.settings.save({ ...s, authMethod: 'hook', auth: { ...s.auth, command } });
        services.auth.throttle.succeed(['user:hooked', 'ip:127.0.0.1']);
        expect(await login('hooked', 'right password'), command).toBeInstanceOf(ForbiddenError);
      }
      await services.repos.settings.save({ ...s, authMethod: 'json' });
    });
  });
});
