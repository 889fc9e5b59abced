/** The authenticated share API: creation, validation, listing, deletion, permissions (SHARE, AUTHZ, LEAK). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jumpClock } from '../helpers/clock.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS, publicInfo, share, type ShareDto } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
let alice: { client: Client; id: number };
let bob: { client: Client; id: number };

beforeAll(async () => {
  fm = await startFm();
  for (const dir of ['alice/docs/sub', 'bob/stuff']) fs.mkdirSync(path.join(fm.root, dir), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'alice/docs/a.txt'), 'alpha');
  fs.writeFileSync(path.join(fm.root, 'alice/report.pdf'), '%PDF-1.4');
  fs.writeFileSync(path.join(fm.root, 'bob/stuff/b.txt'), 'beta');
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  bob = await createUser(admin, fm, 'bob', { scope: '/bob', perm: PERMS });
});

afterAll(async () => {
  await fm?.stop();
});

describe('creating links', () => {
  it('creates a permanent link with a random URL-safe hash of 12+ characters', async () => {
    const s = await share(alice.client, '/docs');
    expect(s).toEqual({ hash: expect.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_-]{11,}$/), path: '/docs', userID: alice.id, expire: 0, hasPassword: false });
    const again = await share(alice.client, '/docs');
    expect(again.hash).not.toBe(s.hash);
  });

  it('SHARE 3q2p-72cj-682c: refuses a link for a path that does not exist (404)', async () => {
    const res = await alice.client.fetch('/api/share/nope.txt', { method: 'POST', json: {} });
    expect(res.status).toBe(404);
    const list = await alice.client.json<ShareDto[]>('/api/shares');
    expect(list.some((s) => s.path === '/nope.txt')).toBe(false);
  });

  it('PATH: refuses a path that climbs out of the scope', async () => {
    const res = await alice.client.fetch('/api/share/%2e%2e/bob/stuff', { method: 'POST', json: {} });
    expect([403, 404]).toContain(res.status);
  });

  it('cleans the path before storing it', async () => {
    const s = await share(alice.client, '//docs/./sub/');
    expect(s.path).toBe('/docs/sub');
  });

  it('computes the expiry from expires and unit (default hours)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ expires: '2' }, 2 * 3600],
      [{ expires: 3, unit: 'minutes' }, 180],
      [{ expires: '1', unit: 'days' }, 86400],
      [{ expires: 90, unit: 'seconds' }, 90],
      [{ expires: '2147483647', unit: 'seconds' }, 2147483647],
    ];
    for (const [body, seconds] of cases) {
      const s = await share(alice.client, '/docs/a.txt', body);
      const after = Math.floor(Date.now() / 1000);
      expect(s.expire).toBeGreaterThanOrEqual(before + seconds);
      expect(s.expire).toBeLessThanOrEqual(after + seconds + 1);
    }
  });

  it('treats empty or zero expires as permanent', async () => {
    for (const body of [{ expires: '' }, { expires: 0 }, { expires: '0', unit: 'days' }, { password: '' }]) {
      expect((await share(alice.client, '/docs/a.txt', body)).expire).toBe(0);
    }
  });

  it('rejects bad durations and unknown units with 400', async () => {
    const bad = [
      { expires: '-1' },
      { expires: -5 },
      { expires: '2147483648' },
      { expires: 1.5 },
      { expires: 'soon' },
      { expires: '1', unit: 'weeks' },
      { expires: '1', unit: 7 },
      { password: 42 },
      { expires: true },
    ];
    for (const body of bad) {
      const res = await alice.client.fetch('/api/share/docs/a.txt', { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const notJson = await alice.client.fetch('/api/share/docs/a.txt', { method: 'POST', body: '{"expires":', headers: { 'Content-Type': 'application/json' } });
    expect(notJson.status).toBe(400);
  });

  it("caps a link's life at 100 years: more is a 400 naming the limit, the limit itself is accepted", async () => {
    for (const [body, most] of [
      [{ expires: 999999999, unit: 'days' }, '36525 days'],
      [{ expires: '876601', unit: 'hours' }, '876600 hours'],
      [{ expires: 2147483647, unit: 'minutes' }, '52596000 minutes'],
    ] as const) {
      const res = await alice.client.fetch('/api/share/docs/a.txt', { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.text()).toBe(`400 Bad Request: expires: a link lives at most 100 years (${most})\n`);
    }
    const fromQuery = await alice.client.fetch('/api/share/docs/a.txt?expires=999999999&unit=days', { method: 'POST', json: {} });
    expect(fromQuery.status).toBe(400);
    const before = Math.floor(Date.now() / 1000);
    const longest = await share(alice.client, '/docs/a.txt', { expires: 36525, unit: 'days' });
    expect(longest.expire - before).toBeGreaterThanOrEqual(36525 * 86400);
    expect(longest.expire - before).toBeLessThan(36525 * 86400 + 10);
  });

  it('takes expires and unit from the query when the body lacks them; the body wins', async () => {
    const before = Math.floor(Date.now() / 1000);
    const fromQuery = await alice.client.json<ShareDto>('/api/share/docs/a.txt?expires=5&unit=minutes', { method: 'POST', json: {} });
    expect(fromQuery.expire - before).toBeGreaterThanOrEqual(300);
    expect(fromQuery.expire - before).toBeLessThan(310);
    const bodyWins = await alice.client.json<ShareDto>('/api/share/docs/a.txt?expires=5&unit=days', {
      method: 'POST',
      json: { expires: '10', unit: 'seconds' },
    });
    expect(bodyWins.expire - before).toBeGreaterThanOrEqual(10);
    expect(bodyWins.expire - before).toBeLessThan(20);
    const badQuery = await alice.client.fetch('/api/share/docs/a.txt?unit=fortnights', { method: 'POST', json: {} });
    expect(badQuery.status).toBe(400);
  });

  it('needs share and download permission (403 otherwise)', async () => {
    const carol = await createUser(admin, fm, 'carol', { scope: '/alice', perm: { ...PERMS, share: false } });
    const dave = await createUser(admin, fm, 'dave', { scope: '/alice', perm: { ...PERMS, share: false, download: false } });
    for (const c of [carol.client, dave.client]) {
      expect((await c.fetch('/api/share/docs', { method: 'POST', json: {} })).status).toBe(403);
      expect((await c.fetch('/api/shares')).status).toBe(403);
      expect((await c.fetch('/api/share/docs')).status).toBe(403);
    }
    expect((await fetch(`${fm.url}/api/shares`)).status).toBe(401);
  });

  it('honours rules: a path denied to the user cannot be shared', async () => {
    const erin = await createUser(admin, fm, 'erin', {
      scope: '/alice',
      perm: PERMS,
      rules: [{ allow: false, path: '/docs', regex: false, regexp: { raw: '' } }],
    });
    expect((await erin.client.fetch('/api/share/docs/a.txt', { method: 'POST', json: {} })).status).toBe(403);
    expect((await erin.client.fetch('/api/share/report.pdf', { method: 'POST', json: {} })).status).toBe(200);
  });
});

describe('LEAK 833g-cqhp-h72j: responses never carry secrets', () => {
  it('POST, GET /api/shares and GET /api/share/{path} show hasPassword only', async () => {
    const created = await alice.client.fetch('/api/share/report.pdf', { method: 'POST', json: { password: 'open sesame' } });
    const createdText = await created.text();
    const s = JSON.parse(createdText) as ShareDto;
    expect(Object.keys(s).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID']);
    expect(s.hasPassword).toBe(true);
    const own = await (await alice.client.fetch('/api/shares')).text();
    const forPath = await (await alice.client.fetch('/api/share/report.pdf')).text();
    const all = await (await admin.fetch('/api/shares')).text();
    for (const text of [createdText, own, forPath, all]) {
      expect(text).not.toMatch(/password_hash|token|\$2[aby]\$/i);
    }
    for (const item of JSON.parse(own) as ShareDto[]) expect(Object.keys(item).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID']);
    for (const item of JSON.parse(all) as ShareDto[]) {
      expect(Object.keys(item).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID', 'username']);
    }
  });
});

describe('listing links', () => {
  it('GET /api/shares lists only the caller’s links; admins see all with usernames', async () => {
    await share(bob.client, '/stuff');
    const mine = await alice.client.json<ShareDto[]>('/api/shares');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((s) => s.userID === alice.id && s.username === undefined)).toBe(true);
    const bobs = await bob.client.json<ShareDto[]>('/api/shares');
    expect(bobs.every((s) => s.userID === bob.id)).toBe(true);
    const all = await admin.json<ShareDto[]>('/api/shares');
    expect(all.some((s) => s.userID === alice.id && s.username === 'alice')).toBe(true);
    expect(all.some((s) => s.userID === bob.id && s.username === 'bob')).toBe(true);
  });

  it('lists permanent links first, then by expiry', async () => {
    const list = await alice.client.json<ShareDto[]>('/api/shares');
    const expiries = list.map((s) => s.expire);
    const firstTimed = expiries.findIndex((e) => e !== 0);
    expect(firstTimed).toBeGreaterThan(0);
    expect(expiries.slice(firstTimed).every((e) => e !== 0)).toBe(true);
    const timed = expiries.slice(firstTimed);
    expect(timed).toEqual([...timed].sort((a, b) => a - b));
  });

  it('GET /api/share/{path} lists the caller’s links for exactly that path', async () => {
    const list = await alice.client.json<ShareDto[]>('/api/share/docs');
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(list.every((s) => s.path === '/docs' && s.userID === alice.id)).toBe(true);
    expect(await bob.client.json<ShareDto[]>('/api/share/docs')).toEqual([]);
    expect(await alice.client.json<ShareDto[]>('/api/share/nothing-here')).toEqual([]);
  });
});

describe('deleting links', () => {
  it('AUTHZ 6cqf-cfhv-659g: another user deleting your link gets 403 and the link stays', async () => {
    const s = await share(alice.client, '/docs');
    const res = await bob.client.fetch(`/api/share/${s.hash}`, { method: 'DELETE' });
    expect(res.status).toBe(403);
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
  });

  it('AUTHZ 5ww9-jg6q-38r7: only the exact hash matches, never a prefix or a path', async () => {
    const s = await share(alice.client, '/docs');
    for (const wrong of [s.hash.slice(0, 6), s.hash.slice(0, -1), `${s.hash}x`, `${s.hash}%2Fx`, `${s.hash}/x`, `${s.hash.slice(0, 4)}*`]) {
      const res = await alice.client.fetch(`/api/share/${wrong}`, { method: 'DELETE' });
      expect(res.status, wrong).toBe(404);
    }
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    expect((await alice.client.fetch('/api/share/', { method: 'DELETE' })).status).toBe(400);
  });

  it('the owner deletes their link; the admin deletes anyone’s; unknown is 404', async () => {
    const a = await share(alice.client, '/docs');
    expect((await alice.client.fetch(`/api/share/${a.hash}`, { method: 'DELETE' })).status).toBe(200);
    expect((await publicInfo(fm, a.hash)).status).toBe(404);
    expect((await alice.client.fetch(`/api/share/${a.hash}`, { method: 'DELETE' })).status).toBe(404);
    const b = await share(bob.client, '/stuff');
    expect((await admin.fetch(`/api/share/${b.hash}`, { method: 'DELETE' })).status).toBe(200);
    expect((await bob.client.json<ShareDto[]>('/api/shares')).some((s) => s.hash === b.hash)).toBe(false);
  });
});

describe('expiry', () => {
  it('a link made with expires=1 unit=seconds expires, answers 404 and is removed', async () => {
    const s = await share(alice.client, '/docs/a.txt', { expires: 1, unit: 'seconds' });
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    jumpClock(2100);
    try {
      expect((await publicInfo(fm, s.hash)).status).toBe(404);
      expect((await alice.client.json<ShareDto[]>('/api/shares')).some((x) => x.hash === s.hash)).toBe(false);
      expect((await alice.client.fetch(`/api/share/${s.hash}`, { method: 'DELETE' })).status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('owner lifecycle', () => {
  it('deleting a user removes their links', async () => {
    const frank = await createUser(admin, fm, 'frank', { scope: '/bob', perm: PERMS });
    const s = await share(frank.client, '/stuff/b.txt');
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    const res = await admin.fetch(`/api/users/${frank.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } });
    expect(res.status).toBe(200);
    expect((await publicInfo(fm, s.hash)).status).toBe(404);
    expect((await admin.json<ShareDto[]>('/api/shares')).some((x) => x.userID === frank.id)).toBe(false);
  });

  it('deleting a user leaves the other users and their links alone', async () => {
    const a = await share(alice.client, '/docs');
    const b = await share(bob.client, '/stuff');
    const gina = await createUser(admin, fm, 'gina', { scope: '/bob', perm: PERMS });
    await share(gina.client, '/stuff');
    expect((await admin.fetch(`/api/users/${gina.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(200);
    const names = (await admin.json<Array<{ username: string }>>('/api/users')).map((u) => u.username);
    expect(names).toEqual(expect.arrayContaining(['alice', 'bob']));
    expect(names).not.toContain('gina');
    for (const s of [a, b]) expect((await publicInfo(fm, s.hash)).status).toBe(200);
    expect((await alice.client.json<ShareDto[]>('/api/shares')).map((x) => x.hash)).toContain(a.hash);
    expect((await bob.client.json<ShareDto[]>('/api/shares')).map((x) => x.hash)).toContain(b.hash);
  });
});
