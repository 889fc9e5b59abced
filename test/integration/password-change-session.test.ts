/**
 * AUTH: changing your own password keeps the session that made the change (filebrowser's web
 * client goes on with its token and renews it) and ends every other session of that user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { decodeToken } from '../helpers/http-raw.ts';

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

/** What filebrowser's client sends: the JSON body as text/plain, with X-Auth (frontend/src/api/utils.ts). */
function fbFetch(token: string, pathname: string, method: string, body?: unknown): Promise<Response> {
  return fetch(`${fm.url}${pathname}`, {
    method,
    headers: { 'X-Auth': token, 'Content-Type': 'text/plain;charset=UTF-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const status = async (token: string, id: number) => (await fetch(`${fm.url}/api/users/${id}`, { headers: { 'X-Auth': token } })).status;

describe('AUTH own password change keeps the current session', () => {
  it("filebrowser's client keeps working: its token stays valid and its renewal answers a new one", async () => {
    const user = await createUser(admin, fm, 'frank', {}, 'frank-first-password');
    const other = new Client(fm.url);
    await other.login('frank', 'frank-first-password');
    const res = await fbFetch(user.client.token, `/api/users/${user.id}`, 'PUT', {
      what: 'user',
      which: ['password'],
      current_password: 'frank-first-password',
      data: { id: user.id, password: 'frank-second-password' },
    });
    expect(res.status).toBe(200);
    // The client renews when told to (at once, or on its next call).
    expect(res.headers.get('x-renew-token')).toBe('true');
    expect(await status(user.client.token, user.id)).toBe(200);
    const renewed = await fbFetch(user.client.token, '/api/renew', 'POST');
    expect(renewed.status).toBe(200);
    const fresh = await renewed.text();
    expect(decodeToken(fresh).user.id).toBe(user.id);
    expect(await status(fresh, user.id)).toBe(200);
    // Every other session of that user is over.
    expect(await status(other.token, user.id)).toBe(401);
    // The new password is the one that logs in.
    await new Client(fm.url).login('frank', 'frank-second-password');
    expect((await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'frank', password: 'frank-first-password' }) })).status).toBe(
      403,
    );
  });

  it('a second change from the renewed session ends the first one', async () => {
    const user = await createUser(admin, fm, 'grace', {}, 'grace-first-password');
    const first = user.client.token;
    const change = (token: string, from: string, to: string) =>
      fbFetch(token, `/api/users/${user.id}`, 'PUT', { what: 'user', which: ['password'], current_password: from, data: { id: user.id, password: to } });
    expect((await change(first, 'grace-first-password', 'grace-second-password')).status).toBe(200);
    const second = await (await fbFetch(first, '/api/renew', 'POST')).text();
    expect((await change(second, 'grace-second-password', 'grace-third-password')).status).toBe(200);
    expect(await status(second, user.id)).toBe(200);
    expect(await status(first, user.id)).toBe(401);
  });

  it('a logged-out session that changed the password stays logged out', async () => {
    const user = await createUser(admin, fm, 'heidi', {}, 'heidi-first-password');
    const res = await fbFetch(user.client.token, `/api/users/${user.id}`, 'PUT', {
      what: 'user',
      which: ['password'],
      current_password: 'heidi-first-password',
      data: { id: user.id, password: 'heidi-second-password' },
    });
    expect(res.status).toBe(200);
    expect((await fbFetch(user.client.token, '/api/logout', 'POST')).status).toBe(200);
    expect(await status(user.client.token, user.id)).toBe(401);
  });

  it("an admin resetting someone else's password ends all of that user's sessions", async () => {
    const user = await createUser(admin, fm, 'ivan', {}, 'ivan-first-password');
    const res = await admin.fetch(`/api/users/${user.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['password'], current_password: fm.adminPassword, data: { id: user.id, password: 'ivan-reset-password-1' } },
    });
    expect(res.status).toBe(200);
    expect(await status(user.client.token, user.id)).toBe(401);
    expect(await status(admin.token, 1)).toBe(200);
  });
});
