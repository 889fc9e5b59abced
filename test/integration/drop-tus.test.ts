/**
 * SHARE: tus uploads through a drop link. Uploads addressed by a random id bound to their link
 * (no other link, and no request without the id, reaches them), resumed from the offset kept,
 * placed under a free name decided at completion (two drops of one name both survive), limits
 * checked on the declared length and reserved at creation, and an upload whose link is deleted
 * refused with its staging removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMS, publicInfo, type ShareDto, updateUser } from './share-helpers.ts';
import { type DropFm, stagingFiles, startDropFm, tree, tusDrop } from './drop-helpers.ts';
import { OFFSET_TYPE, sha256, sha256File, testBytes } from './tus-helpers.ts';

let t: DropFm;

beforeAll(async () => {
  t = await startDropFm();
});

afterAll(async () => {
  await t.close();
});

function resetInbox() {
  fs.rmSync(t.inbox, { recursive: true, force: true });
  fs.mkdirSync(t.inbox);
  fs.writeFileSync(path.join(t.inbox, 'kept.txt'), 'already there');
}

/** Creates an upload; returns the Location (path and query). */
async function create(hash: string, name: string, length: number, headers: Record<string, string> = {}): Promise<string> {
  const res = await tusDrop(t.fm, 'POST', `${hash}/${name}`, { 'Upload-Length': String(length), ...headers });
  expect(res.status, res.text).toBe(201);
  const location = String(res.headers.location);
  expect(location).toMatch(new RegExp(`^/api/public/tus/${hash}/.+\\?id=[0-9a-f]{40}`));
  return location;
}

function patch(location: string, offset: number, body: Buffer, headers: Record<string, string> = {}) {
  return tusDrop(
    t.fm,
    'PATCH',
    location,
    { 'Content-Type': OFFSET_TYPE, 'Upload-Offset': String(offset), 'Content-Length': String(body.length), ...headers },
    body,
  );
}

async function receivedOf(hash: string): Promise<ShareDto['received']> {
  return (await t.alice.client.json<ShareDto[]>('/api/shares')).find((s) => s.hash === hash)?.received;
}

describe('SHARE drop over tus', () => {
  it('uploads in chunks, resumes from the offset the server kept, and lands byte-identical', async () => {
    resetInbox();
    const s = await t.drop();
    const data = testBytes(300_000, 7);
    const location = await create(s.hash, 'movie.bin', data.length);
    expect((await patch(location, 0, data.subarray(0, 100_000))).status).toBe(204);
    const head = await tusDrop(t.fm, 'HEAD', location);
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe('100000');
    // A chunk from a wrong offset is refused with the right one.
    expect((await patch(location, 50, data.subarray(50))).status).toBe(409);
    const last = await patch(location, 100_000, data.subarray(100_000));
    expect(last.status).toBe(204);
    expect(last.headers['upload-offset']).toBe(String(data.length));
    expect(await sha256File(path.join(t.inbox, 'movie.bin'))).toBe(sha256(data));
    expect(await receivedOf(s.hash)).toMatchObject({ files: 1, bytes: data.length });
    expect(stagingFiles(t.staging)).toEqual([]);
  });

  it('decides a clash at completion: two drops of the same name both survive, nothing is overwritten', async () => {
    resetInbox();
    const s = await t.drop();
    const a = await create(s.hash, 'kept.txt', 5);
    const b = await create(s.hash, 'kept.txt', 5);
    expect((await patch(b, 0, Buffer.from('bbbbb'))).status).toBe(204);
    expect((await patch(a, 0, Buffer.from('aaaaa'))).status).toBe(204);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'kept (1).txt': 'bbbbb', 'kept (2).txt': 'aaaaa' });
  });

  it('binds an upload to its link and id: another link, a missing or a wrong id reach nothing (404)', async () => {
    resetInbox();
    const s = await t.drop();
    const other = await t.drop();
    const location = await create(s.hash, 'mine.txt', 4);
    const id = new URL(location, t.fm.url).searchParams.get('id')!;
    const foreign = `/api/public/tus/${other.hash}/mine.txt?id=${id}`;
    expect((await tusDrop(t.fm, 'HEAD', foreign)).status).toBe(404);
    expect((await patch(foreign, 0, Buffer.from('evil'))).status).toBe(404);
    expect((await tusDrop(t.fm, 'DELETE', foreign)).status).toBe(404);
    expect((await tusDrop(t.fm, 'HEAD', `/api/public/tus/${s.hash}/mine.txt`)).status).toBe(404);
    expect((await tusDrop(t.fm, 'HEAD', `/api/public/tus/${s.hash}/mine.txt?id=${'0'.repeat(40)}`)).status).toBe(404);
    expect((await tusDrop(t.fm, 'HEAD', `/api/public/tus/${s.hash}/mine.txt?id=../../x`)).status).toBe(400);
    // The owner's own tus endpoint does not reach it either.
    expect((await t.alice.client.fetch('/api/tus/inbox/mine.txt', { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).status).toBe(404);
    expect((await patch(location, 0, Buffer.from('good'))).status).toBe(204);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'mine.txt': 'good' });
  });

  it('refuses a declared length over a limit before any byte (413) and reserves room at creation', async () => {
    resetInbox();
    const s = await t.drop({ maxFiles: 1, maxFileSize: 100 });
    const big = await tusDrop(t.fm, 'POST', `${s.hash}/big.bin`, { 'Upload-Length': '101' });
    expect(big.status).toBe(413);
    expect(big.headers['x-fm-error']).toBe('drop_file_size');
    const huge = await tusDrop(t.fm, 'POST', `${s.hash}/huge.bin`, { 'Upload-Length': '99999999999999999999' });
    expect(huge.status).toBe(413);
    expect(stagingFiles(t.staging)).toEqual([]);
    const both = await Promise.all([
      tusDrop(t.fm, 'POST', `${s.hash}/one.bin`, { 'Upload-Length': '3' }),
      tusDrop(t.fm, 'POST', `${s.hash}/two.bin`, { 'Upload-Length': '3' }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 413]);
    expect((await (await publicInfo(t.fm, s.hash)).json()).left).toMatchObject({ maxFiles: 0 });
    // Terminating gives the room back.
    const made = both.find((r) => r.status === 201)!;
    expect((await tusDrop(t.fm, 'DELETE', String(made.headers.location))).status).toBe(204);
    expect(stagingFiles(t.staging)).toEqual([]);
    const again = await create(s.hash, 'three.bin', 3);
    expect((await patch(again, 0, Buffer.from('333'))).status).toBe(204);
    expect((await tusDrop(t.fm, 'POST', `${s.hash}/four.bin`, { 'Upload-Length': '1' })).status).toBe(413);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'three.bin': '333' });
  });

  it('places an empty file at its creation, under a free name, and counts it', async () => {
    resetInbox();
    const s = await t.drop();
    await create(s.hash, 'kept.txt', 0);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'kept (1).txt': '' });
    expect(await receivedOf(s.hash)).toMatchObject({ files: 1, bytes: 0 });
    expect(stagingFiles(t.staging)).toEqual([]);
  });

  it("re-checks the owner's create permission at every chunk (403), and goes on once it is back", async () => {
    resetInbox();
    const s = await t.drop();
    const location = await create(s.hash, 'slow.bin', 6);
    expect((await patch(location, 0, Buffer.from('abc'))).status).toBe(204);
    await updateUser(t.admin, t.fm, t.alice.id, { perm: { ...PERMS, create: false } });
    try {
      expect((await patch(location, 3, Buffer.from('def'))).status).toBe(403);
      expect((await tusDrop(t.fm, 'HEAD', location)).status).toBe(403);
    } finally {
      await updateUser(t.admin, t.fm, t.alice.id, { perm: PERMS });
    }
    expect((await patch(location, 3, Buffer.from('def'))).status).toBe(204);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'slow.bin': 'abcdef' });
  });

  it('refuses bad names (400) and keeps nothing in staging', async () => {
    const s = await t.drop();
    for (const name of ['..', '%2e%2e/x', 'a/../../x', '/x', 'a//b']) {
      expect((await tusDrop(t.fm, 'POST', `${s.hash}/${name}`, { 'Upload-Length': '1' })).status, name).toBe(400);
    }
    expect(stagingFiles(t.staging)).toEqual([]);
  });

  it('refuses the rest of an upload whose link was deleted, and removes its staging', async () => {
    resetInbox();
    const s = await t.drop();
    const location = await create(s.hash, 'late.bin', 10);
    expect((await patch(location, 0, Buffer.from('12345'))).status).toBe(204);
    expect(stagingFiles(t.staging).length).toBeGreaterThan(0);
    expect((await t.alice.client.fetch(`/api/share/${s.hash}`, { method: 'DELETE' })).status).toBe(200);
    expect(stagingFiles(t.staging)).toEqual([]);
    expect((await patch(location, 5, Buffer.from('67890'))).status).toBe(404);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there' });
  });

  it('removes the staging of an upload whose link expired at its next request', async () => {
    resetInbox();
    const s = await t.drop({ expires: 1, unit: 'days' });
    const location = await create(s.hash, 'late.bin', 10);
    expect((await patch(location, 0, Buffer.from('12345'))).status).toBe(204);
    const { seenByServer, withDb } = await import('../helpers/http-raw.ts');
    await withDb(t.fm.dbFile, async ({ shares }) => {
      const rec = (await shares.get(s.hash))!;
      await shares.update({ ...rec, expire: Math.floor(Date.now() / 1000) - 10 });
    });
    await seenByServer(async () => (await publicInfo(t.fm, s.hash)).status === 404, 'the link expired');
    expect((await tusDrop(t.fm, 'HEAD', location)).status).toBe(404);
    expect(stagingFiles(t.staging)).toEqual([]);
  });

  it('takes the token in the creation query and keeps it in the Location', async () => {
    resetInbox();
    const s = await t.drop({ password: 'tus-secret' });
    expect((await tusDrop(t.fm, 'POST', `${s.hash}/p.txt`, { 'Upload-Length': '2' })).status).toBe(401);
    const { token } = (await (await publicInfo(t.fm, s.hash, '', { 'X-SHARE-PASSWORD': 'tus-secret' })).json()) as { token: string };
    const location = await create(s.hash, `p.txt?token=${token}`, 2);
    expect(new URL(location, t.fm.url).searchParams.get('token')).toBe(token);
    expect((await patch(location, 0, Buffer.from('pw'))).status).toBe(204);
    expect(tree(t.inbox)).toEqual({ 'kept.txt': 'already there', 'p.txt': 'pw' });
  });
});
