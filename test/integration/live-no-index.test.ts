/**
 * Live listings without the search index (`--no-index`): the followed folder is watched on its
 * own, so another process's new, changed, renamed and deleted files still arrive, names that are
 * not UTF-8 exactly (the watch's own life: test/unit/live-hub-watch.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveChangeDto } from '../../src/api/live.ts';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { openSse, type SseEvent, type SseReader } from '../helpers/sse.ts';

let fm: FmServer;
let admin: Client;

async function stream(folder: string): Promise<SseReader> {
  const res = await openSse(`${fm.url}/api/events${folder}`, { 'X-Auth': admin.token });
  expect(res.status, res.text).toBe(200);
  await res.reader!.waitFor((e) => e.event === 'ready');
  return res.reader!;
}

const change = (e: SseEvent) => (e.event === 'change' ? (JSON.parse(e.data) as LiveChangeDto) : undefined);
const hasItem = (name: string, size?: number) => (e: SseEvent) =>
  change(e)?.items.some((i) => i.name === name && (size === undefined || i.size === size)) ?? false;
const hasRemoved = (name: string) => (e: SseEvent) => change(e)?.removed.includes(name) ?? false;

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  admin = await adminClient(fm);
  fs.mkdirSync(path.join(fm.root, 'outside'));
});

afterAll(async () => {
  await fm?.stop();
});

describe('live listings with --no-index', () => {
  it("another process's new, changed, renamed and deleted files arrive", async () => {
    const r = await stream('/outside');
    const file = path.join(fm.root, 'outside', 'made-beside.bin');
    fs.writeFileSync(file, Buffer.alloc(10));
    await r.waitFor(hasItem('made-beside.bin'));
    let from = r.events.length;
    fs.writeFileSync(file, Buffer.alloc(20));
    await r.waitFor(hasItem('made-beside.bin', 20), 5000, from);
    from = r.events.length;
    fs.renameSync(file, path.join(fm.root, 'outside', 'renamed.bin'));
    await r.waitFor(hasRemoved('made-beside.bin'), 5000, from);
    await r.waitFor(hasItem('renamed.bin'), 5000, from);
    from = r.events.length;
    fs.rmSync(path.join(fm.root, 'outside', 'renamed.bin'));
    await r.waitFor(hasRemoved('renamed.bin'), 5000, from);
    r.close();
  });

  it("another process's name that is not UTF-8 arrives exactly, as the listing names it", async () => {
    const r = await stream('/outside');
    fs.writeFileSync(Buffer.concat([Buffer.from(`${fm.root}/outside/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'x');
    const listed = (await admin.json<{ items: Array<{ name: string }> }>('/api/resources/outside/')).items.map((i) => i.name);
    const bad = listed.find((n) => n.startsWith('bad-'));
    expect(bad).toBeDefined();
    await r.waitFor(hasItem(bad!));
    r.close();
  });
});
