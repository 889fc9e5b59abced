/**
 * Every API error carries a stable machine code in `X-Fm-Error` (the UI translates it), while the
 * status and the text/plain body stay filebrowser's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  fs.writeFileSync(path.join(fm.root, 'a.txt'), 'a');
  fs.writeFileSync(path.join(fm.root, 'b.txt'), 'b');
});
afterAll(async () => {
  await fm.stop();
});

async function answer(client: Client, p: string, init: RequestInit & { json?: unknown } = {}) {
  const res = await client.fetch(p, init);
  return { status: res.status, code: res.headers.get('X-Fm-Error'), type: res.headers.get('Content-Type'), body: await res.text() };
}

describe('error codes', () => {
  it('a copy onto an existing file is 409 exists, with the body unchanged', async () => {
    const r = await answer(admin, `/api/resources/a.txt?action=copy&destination=${encodeURIComponent('/b.txt')}`, { method: 'PATCH' });
    expect(r).toEqual({ status: 409, code: 'exists', type: 'text/plain; charset=utf-8', body: '409 Conflict: the destination exists\n' });
  });

  it('a missing permission is 403 permission_required', async () => {
    const { client } = await createUser(admin, fm, 'reader', { scope: '/', perm: { create: false } });
    const r = await answer(client, '/api/resources/new.txt', { method: 'POST', body: 'x' });
    expect(r).toMatchObject({ status: 403, code: 'permission_required', body: '403 Forbidden: create permission required\n' });
  });

  it('a missing file and an unknown API route are 404 not_found', async () => {
    expect(await answer(admin, '/api/resources/missing.txt')).toMatchObject({ status: 404, code: 'not_found' });
    expect(await answer(admin, '/api/no-such-route')).toMatchObject({ status: 404, code: 'not_found', body: '404 Not Found\n' });
  });

  it('input that fails validation is 400 invalid_input', async () => {
    const r = await answer(admin, '/api/resources/a.txt?action=explode&destination=%2Fc.txt', { method: 'PATCH' });
    expect(r).toMatchObject({ status: 400, code: 'invalid_input' });
    expect(r.body).toMatch(/^400 Bad Request: /);
  });

  it('a wrong method is 405 method_not_allowed with Allow', async () => {
    const res = await admin.fetch('/health', { method: 'DELETE' });
    expect([res.status, res.headers.get('X-Fm-Error'), res.headers.get('Allow')]).toEqual([405, 'method_not_allowed', 'HEAD, GET']);
  });

  it('a request without a token is 401 unauthorized', async () => {
    const res = await fetch(`${fm.url}/api/resources/`);
    expect([res.status, res.headers.get('X-Fm-Error')]).toEqual([401, 'unauthorized']);
  });
});
