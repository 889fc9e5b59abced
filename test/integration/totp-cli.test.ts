/** `fm users update NAME --reset-2fa` and `fm config set --totp-required` on the database of a running server. */
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TotpEnrolment } from '../../src/api/totp.ts';
import { runFm } from '../helpers/cli.ts';
import { adminClient, type Client, createUser, startFm, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let admin: Client;
const fmCli = (...args: string[]) => runFm(['--database', fm.dbFile, ...args]);
const login = (username: string, password: string) => fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username, password }) });

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm?.stop();
});

describe('fm users update --reset-2fa', () => {
  it('turns a locked-out user’s two-factor login off: the password alone signs in again', async () => {
    const kim = await createUser(admin, fm, 'kim');
    const { secret } = await kim.client.json<TotpEnrolment>(`/api/users/${kim.id}/totp`, { method: 'POST' });
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    expect((await kim.client.fetch(`/api/users/${kim.id}/totp`, { method: 'PUT', json: { code } })).status).toBe(200);
    expect((await login('kim', kim.password)).status).toBe(401);

    const reset = await fmCli('users', 'update', 'kim', '--reset-2fa');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('two-factor login turned off');
    expect((await login('kim', kim.password)).status).toBe(200);

    const again = await fmCli('users', 'update', 'kim', '--reset-2fa');
    expect([again.code, again.stdout.includes('was not on')]).toEqual([0, true]);
    expect((await fmCli('users', 'update', 'nobody', '--reset-2fa')).code).toBe(1);
  });
});

describe('fm config set --totp-required', () => {
  it('sets the policy the running server reads, and refuses other values (exit 2)', async () => {
    const set = await fmCli('config', 'set', '--totp-required', 'admins');
    expect(set.code).toBe(0);
    expect((await admin.json<{ totpRequired: string }>('/api/settings')).totpRequired).toBe('admins');
    expect((await fmCli('config', 'cat')).stdout).toMatch(/two-factor login required:\s+admins/);
    const bad = await fmCli('config', 'set', '--totp-required', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/none, admins, all/);
    expect((await fmCli('config', 'set', '--totp-required', 'none')).code).toBe(0);
  });
});
