/**
 * PROV (advisories 6759-996p-gpj6, j2fc-28fx-hc8q): users that create themselves (signup) or
 * that a proxy names must not get the whole root with write rights. fm refuses to turn signup
 * or proxy provisioning on while the defaults would give that (scope "." or "/", a write
 * permission, no per-user folder), and warns at start about instances already like that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, adminClient, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';
import { patchSettings, withDb } from '../helpers/http-raw.ts';

// Tests read arbitrary JSON shapes from the API.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe('PROV PUT /api/settings refuses signup that would hand out the root', () => {
  let fm: FmServer;
  let admin: Client;
  const put = async (changes: Json) => {
    const current = await admin.json<Json>('/api/settings');
    return admin.fetch('/api/settings', { method: 'PUT', json: { ...current, ...changes } });
  };

  beforeAll(async () => {
    fm = await startFm();
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('400 for signup with the default scope "." and write permissions, nothing saved', async () => {
    const res = await put({ signup: true });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/^400 Bad Request: .*signup.*whole root.*createUserDir/);
    expect((await admin.json<Json>('/api/settings')).signup).toBe(false);
    const s = await admin.json<Json>('/api/settings');
    for (const scope of ['/', '', './', '//']) {
      expect((await put({ signup: true, defaults: { ...s.defaults, scope } })).status, scope).toBe(400);
    }
  });

  it('accepts signup with per-user folders, a narrower default scope, or a read-only root', async () => {
    const s = await admin.json<Json>('/api/settings');
    expect((await put({ signup: true, createUserDir: true })).status).toBe(200);
    expect((await put({ signup: false, createUserDir: false })).status).toBe(200);
    expect((await put({ signup: true, defaults: { ...s.defaults, scope: '/public' } })).status).toBe(200);
    expect((await put({ signup: false, defaults: s.defaults })).status).toBe(200);
    const readOnly = { ...s.defaults.perm, create: false, rename: false, modify: false, delete: false };
    expect((await put({ signup: true, defaults: { ...s.defaults, perm: readOnly } })).status).toBe(200);
  });

  it('refuses a change that would turn a safe signup into a root-writing one', async () => {
    const s = await admin.json<Json>('/api/settings');
    const res = await put({ defaults: { ...s.defaults, perm: { ...s.defaults.perm, delete: true } } });
    expect(res.status).toBe(400);
    expect((await admin.json<Json>('/api/settings')).defaults.perm.delete).toBe(false);
  });
});

describe('PROV fm config set refuses it too', () => {
  let db: string;
  beforeAll(async () => {
    db = `${tempDir()}/fm.db`;
    expect((await runFm(['config', 'init', '--database', db])).code).toBe(0);
  });

  it('exits 1 with the reason for --signup and for --auth-method proxy on the default settings', async () => {
    const signup = await runFm(['config', 'set', '--signup', '--database', db]);
    expect(signup.code).toBe(1);
    expect(signup.stderr).toMatch(/signup.*whole root.*--create-user-dir/);
    const proxy = await runFm(['config', 'set', '--auth-method', 'proxy', '--auth-header', 'X-User', '--database', db]);
    expect(proxy.code).toBe(1);
    expect(proxy.stderr).toMatch(/proxy.*whole root/);
    const s = await withDb(db, async ({ settings }) => settings.get());
    expect(s.signup).toBe(false);
    expect(s.authMethod).toBe('json');
  });

  it('accepts them together with --create-user-dir', async () => {
    expect((await runFm(['config', 'set', '--signup', '--create-user-dir', '--database', db])).code).toBe(0);
    expect((await runFm(['config', 'set', '--auth-method', 'proxy', '--auth-header', 'X-User', '--database', db])).code).toBe(0);
  });
});

describe('PROV fm serve warns about instances that already hand out the root', () => {
  it('warns at start for signup stored that way, and for --auth-header on the default settings', async () => {
    const first = await startFm({ keep: true });
    await first.stop();
    await patchSettings(first.dbFile, (s) => ({ ...s, signup: true }));
    const again = await startFm({ home: first.home });
    try {
      expect(again.output()).toMatch(/warning: .*signup.*whole root/);
    } finally {
      await again.stop();
    }
    const proxied = await startFm({ args: ['--auth-header', 'X-User'] });
    try {
      expect(proxied.output()).toMatch(/warning: .*proxy.*whole root/);
    } finally {
      await proxied.stop();
    }
    const safe = await startFm();
    try {
      expect(safe.output()).not.toMatch(/whole root/);
    } finally {
      await safe.stop();
    }
  });
});
