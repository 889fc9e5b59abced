/**
 * The audit log records the trash and drop links too: a restore (with where the item went),
 * deleting for good, emptying; every hit of an upload-only link with what was dropped and its
 * bytes, a refused one included, and a tus drop once, by the chunk that completes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/api/audit.ts';
import type { TrashItem } from '../../src/api/trash.ts';
import { type DropFm, postDrop, startDropFm, tusDrop } from './drop-helpers.ts';

let t: DropFm;
const entries = async (query: string) => t.admin.json<AuditEntry[]>(`/api/audit?${query}`);

beforeAll(async () => {
  t = await startDropFm();
});
afterAll(async () => {
  await t.close();
});

describe('audit: trash and drop links', () => {
  it('records a restore with where it went, a delete for good and emptying the trash', async () => {
    const alice = t.alice.client;
    expect((await alice.fetch('/api/resources/notes.txt', { method: 'PUT', body: 'notes' })).status).toBe(200);
    expect((await alice.fetch('/api/resources/notes.txt', { method: 'DELETE' })).status).toBe(204);
    const [item] = await alice.json<TrashItem[]>('/api/trash');
    expect((await alice.fetch(`/api/trash/${item.id}?action=restore`, { method: 'POST' })).status).toBe(200);
    expect((await alice.fetch('/api/trash/ffffffffffffffffff', { method: 'DELETE' })).status).toBe(404);
    expect((await alice.fetch('/api/trash', { method: 'DELETE' })).status).toBe(204);

    const [restore] = await entries('action=restore&user=alice');
    expect(restore).toMatchObject({ actor: 'alice', action: 'restore', path: '/notes.txt', status: 200 });
    const deletes = await entries('action=delete&user=alice');
    expect(deletes.map((e) => [e.path, e.status])).toEqual(
      expect.arrayContaining([
        [null, 204],
        [null, 404],
        ['/notes.txt', 204],
      ]),
    );
  });

  it('records every hit of an upload-only link with the name dropped and its bytes, refused ones too', async () => {
    const link = await t.drop({ password: 'drop-password-1' });
    expect((await postDrop(t.fm, link.hash, 'a.txt', 'twelve bytes', { 'X-SHARE-PASSWORD': 'drop-password-1' })).status).toBe(201);
    expect((await postDrop(t.fm, link.hash, 'b.txt', 'nope', { 'X-SHARE-PASSWORD': 'wrong' })).status).toBe(401);
    const hits = (await entries(`action=share-hit`)).filter((e) => e.share === link.hash);
    expect(hits.map((e) => ({ actor: e.actor, path: e.path, bytes: e.bytes, status: e.status }))).toEqual(
      expect.arrayContaining([{ actor: null, path: '/a.txt', bytes: 12, status: 201 }, expect.objectContaining({ status: 401 })]),
    );
  });

  it('records a tus drop once, by the chunk that completes it', async () => {
    const link = await t.drop();
    const created = await tusDrop(t.fm, 'POST', `${link.hash}/big.bin`, { 'Tus-Resumable': '1.0.0', 'Upload-Length': '8' });
    expect(created.status).toBe(201);
    const at = created.headers.location!.replace(/^.*\/api\/public\/tus\//, '');
    const patch = (offset: number, body: string) =>
      tusDrop(
        t.fm,
        'PATCH',
        at,
        { 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
        Buffer.from(body),
      );
    expect((await patch(0, 'abcd')).status).toBe(204);
    expect((await patch(4, 'efgh')).status).toBe(204);
    const hits = (await entries('action=share-hit')).filter((e) => e.share === link.hash);
    // The creation and the completing chunk; the middle chunk is not recorded.
    expect(hits.map((e) => [e.path, e.bytes, e.status]).sort()).toEqual([
      ['/big.bin', 0, 201],
      ['/big.bin', 8, 204],
    ]);
  });
});
