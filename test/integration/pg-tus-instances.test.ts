/**
 * tus across instances on one PostgreSQL database and one root (issue 21): while one instance
 * appends to an upload another refuses to (423, a database lock); an upload started on one
 * instance that is then killed (kill -9) resumes on the other to a byte-identical file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, tempDir } from '../helpers/server.ts';
import { spawnFm, type SpawnedFm } from '../helpers/spawn.ts';
import { postgresBin, startCluster, type PgCluster } from '../helpers/postgres.ts';
import { Tus, eventually, openPatch, testBytes } from './tus-helpers.ts';

describe.skipIf(!postgresBin())('tus on several instances', () => {
  let cluster: PgCluster;
  let a: SpawnedFm;
  let b: SpawnedFm;
  let token: string;
  let root: string;

  beforeAll(async () => {
    cluster = await startCluster();
    const url = await cluster.createDatabase();
    root = tempDir('fm-shared-root-');
    a = await spawnFm({ root, args: ['--database', url] });
    b = await spawnFm({ root, args: ['--database', url] });
    const admin = new Client(a.url);
    token = await admin.login('admin', a.adminPassword);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await cluster?.destroy();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('an upload cut by kill -9 of its instance resumes on the other, byte-identical; never two writers at once', async () => {
    const data = testBytes(4 * 1024 * 1024, 7);
    const half = data.length / 2;
    const onA = new Tus(Object.assign(new Client(a.url), { token }), a.url);
    const onB = new Tus(Object.assign(new Client(b.url), { token }), b.url);
    expect((await onA.create('/moved.bin', data.length)).status).toBe(201);
    const patch = openPatch(a.url, token, '/moved.bin', 0, data.length, data.subarray(0, half));
    await patch.sent;
    // While A appends, B refuses to (an offset B cannot match would be answered 409 if B got the lock).
    await eventually(async () => (await onB.patch('/moved.bin', data.length, 'x')).status === 423, 30_000);

    await a.kill();
    patch.cut();
    let offset = -1;
    await eventually(async () => {
      const head = await onB.head('/moved.bin');
      offset = Number(head.headers['upload-offset']);
      return head.status === 200 && offset >= 0;
    }, 30_000);
    expect(offset).toBeLessThanOrEqual(half);
    // A's lock went with its connection; B takes over from the durable offset.
    let last = await onB.patch('/moved.bin', offset, data.subarray(offset));
    await eventually(async () => {
      if (last.status === 423) last = await onB.patch('/moved.bin', offset, data.subarray(offset));
      return last.status !== 423;
    }, 30_000);
    expect(last.status).toBe(204);
    expect(fs.readFileSync(path.join(root, 'moved.bin')).equals(data)).toBe(true);
  }, 60_000);
});
