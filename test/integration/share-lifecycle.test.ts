/**
 * SHARE lifecycle through the files API: deleting or moving a shared path (or a folder above
 * it) removes its links, exact and descendant; a path recreated later is not re-exposed
 * (pp88-jhwj-5qh5); saving a shared file keeps its link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { makeTree } from '../helpers/files.ts';
import { PERMS, publicInfo, share, type ShareDto } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
let alice: { client: Client; id: number };

async function hashes(): Promise<string[]> {
  return (await admin.json<ShareDto[]>('/api/shares')).map((s) => s.hash);
}

async function ok(res: Promise<Response>): Promise<void> {
  const r = await res;
  if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
}

beforeAll(async () => {
  fm = await startFm();
  makeTree(path.join(fm.root, 'alice'), {
    a: { 'f.txt': 'f', sub: { 'g.txt': 'g' } },
    ab: { 'h.txt': 'sibling with a common prefix' },
    b: { 'x.txt': 'x' },
    'save.txt': 'version 1',
    c: { 'y.txt': 'y' },
    d: { 'z.txt': 'old z' },
  });
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
});

afterAll(async () => {
  await fm?.stop();
});

describe('SHARE: deleting a shared path removes its links', () => {
  it('exact and descendant links go; a sibling with a common prefix stays', async () => {
    const exact = await share(alice.client, '/a');
    const inner = await share(alice.client, '/a/sub/g.txt');
    const sibling = await share(alice.client, '/ab');
    await ok(alice.client.fetch('/api/resources/a', { method: 'DELETE' }));
    const left = await hashes();
    expect(left).not.toContain(exact.hash);
    expect(left).not.toContain(inner.hash);
    expect(left).toContain(sibling.hash);
    expect((await publicInfo(fm, exact.hash)).status).toBe(404);
  });

  it('a path recreated through fm is not re-exposed by the old link', async () => {
    const s = await share(alice.client, '/c');
    await ok(alice.client.fetch('/api/resources/c', { method: 'DELETE' }));
    await ok(alice.client.fetch('/api/resources/c/', { method: 'POST' }));
    await ok(alice.client.fetch('/api/resources/c/y.txt', { method: 'POST', body: 'new y' }));
    const res = await publicInfo(fm, s.hash, '/y.txt');
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('new y');
  });

  it('an admin deleting the folder above, from a wider scope, removes the link too', async () => {
    const s = await share(alice.client, '/d/z.txt');
    await ok(admin.fetch('/api/resources/alice/d', { method: 'DELETE' }));
    expect(await hashes()).not.toContain(s.hash);
  });
});

describe('SHARE: moving a shared path removes its links', () => {
  it('renaming the path or a folder above it', async () => {
    const folder = await share(alice.client, '/b');
    const inner = await share(alice.client, '/b/x.txt');
    await ok(alice.client.fetch(`/api/resources/b?action=rename&destination=${encodeURIComponent('/b2')}`, { method: 'PATCH' }));
    const left = await hashes();
    expect(left).not.toContain(folder.hash);
    expect(left).not.toContain(inner.hash);
    // Moving it back does not revive the links either.
    await ok(alice.client.fetch(`/api/resources/b2?action=rename&destination=${encodeURIComponent('/b')}`, { method: 'PATCH' }));
    expect((await publicInfo(fm, folder.hash)).status).toBe(404);
  });

  it('moving something onto a shared path removes that link', async () => {
    makeTree(path.join(fm.root, 'alice'), { 'target.txt': 'shared content', 'other.txt': 'replacement' });
    const s = await share(alice.client, '/target.txt');
    await ok(alice.client.fetch(`/api/resources/other.txt?action=rename&destination=${encodeURIComponent('/target.txt')}&override=true`, { method: 'PATCH' }));
    expect(await hashes()).not.toContain(s.hash);
  });
});

describe('saving a shared file', () => {
  it('keeps the link, which serves the new content', async () => {
    const s = await share(alice.client, '/save.txt');
    await ok(alice.client.fetch('/api/resources/save.txt', { method: 'PUT', body: 'version 2' }));
    const res = await publicInfo(fm, s.hash);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { content: string }).content).toBe('version 2');
  });
});
