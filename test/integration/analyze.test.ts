/**
 * The storage analyzer's API: the largest entries from the live index, largest first, with
 * totals and counts, filtered like listings, updated as files change, and a clear state while
 * the index is building or off.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyzeDto, AnalyzeEntryDto } from '../../src/api/analyze.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let admin: Client;

const write = (rel: string, bytes: number) => {
  fs.mkdirSync(path.dirname(path.join(fm.root, rel)), { recursive: true });
  fs.writeFileSync(path.join(fm.root, rel), Buffer.alloc(bytes));
};

async function ready(client: Client, at: string, query = ''): Promise<AnalyzeEntryDto> {
  for (let i = 0; i < 500; i++) {
    const res = await client.json<AnalyzeDto>(`/api/analyze${at}${query}`);
    if (res.state === 'ready') return res.root!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the index did not become ready');
}

const brief = (e: AnalyzeEntryDto): unknown => ({ name: e.name, size: e.size, count: e.count, ...(e.children ? { children: e.children.map(brief) } : {}) });

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  write('t/big/one.bin', 5000);
  write('t/big/two.bin', 3000);
  write('t/big/deep/three.bin', 1000);
  write('t/small/s.bin', 100);
  write('t/top.bin', 4000);
  write('t/.hidden/h.bin', 8500);
  write('t/secret/x.bin', 8000);
  write('t/z1.bin', 1);
  write('t/z2.bin', 2);
});

afterAll(async () => {
  await fm?.stop();
});

describe('GET /api/analyze', () => {
  it('the largest entries first, with folder totals and counts, down to the depth asked for', async () => {
    const root = await ready(admin, '/t', '?depth=2');
    expect(root.path).toBe('/t');
    expect(root.size).toBe(5000 + 3000 + 1000 + 100 + 4000 + 8500 + 8000 + 3);
    expect(root.children!.map((c) => c.name)).toEqual(['big', '.hidden', 'secret', 'top.bin', 'small', 'z2.bin', 'z1.bin']);
    const big = root.children![0];
    expect(brief(big)).toEqual({
      name: 'big',
      size: 9000,
      count: 4,
      children: [
        { name: 'one.bin', size: 5000, count: 0 },
        { name: 'two.bin', size: 3000, count: 0 },
        { name: 'deep', size: 1000, count: 1 },
      ],
    });
    expect(big.children![2].path).toBe('/t/big/deep');
    expect(big.children![2].children).toBeUndefined();
  });

  it('names at most `limit` entries per folder and sums up the rest', async () => {
    const root = await ready(admin, '/t', '?depth=1&limit=2');
    expect(root.children!.map((c) => c.name)).toEqual(['big', '.hidden']);
    expect(root.rest).toEqual({ size: 8000 + 4000 + 100 + 3, count: 5 });
  });

  it('filters like listings: rules and hidden dotfiles', async () => {
    const { client } = await createUser(admin, fm, 'ana', {
      hideDotfiles: true,
      rules: [{ regex: false, allow: false, path: '/t/secret', regexp: { raw: '' } }],
    });
    const root = await ready(client, '/t');
    expect(root.children!.map((c) => c.name)).toEqual(['big', 'top.bin', 'small', 'z2.bin', 'z1.bin']);
    expect((await client.fetch('/api/analyze/t/secret')).status).toBe(403);
  });

  it('a scoped user sees their scope as /', async () => {
    const { client } = await createUser(admin, fm, 'bo', { scope: '/t/big' });
    const root = await ready(client, '/');
    expect(root.path).toBe('/');
    expect(root.size).toBe(9000);
    expect(root.children!.map((c) => c.path)).toEqual(['/one.bin', '/two.bin', '/deep']);
  });

  it('follows changes made by other processes', { timeout: 30_000 }, async () => {
    await ready(admin, '/t');
    write('t/small/grown.bin', 20_000);
    // The watcher reports the file some time later (seconds on a loaded machine): poll until then.
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      const root = await ready(admin, '/t', '?depth=1');
      if (root.children![0].name === 'small') {
        expect(root.children![0]).toMatchObject({ size: 20_100, count: 2 });
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the grown folder never came first');
  });

  it('answers bad input with 400, a missing folder 404, no session 401', async () => {
    expect((await admin.fetch('/api/analyze/t?depth=0')).status).toBe(400);
    expect((await admin.fetch('/api/analyze/t?depth=9')).status).toBe(400);
    expect((await admin.fetch('/api/analyze/t?limit=abc')).status).toBe(400);
    expect((await admin.fetch('/api/analyze/t/top.bin')).status).toBe(400);
    expect((await admin.fetch('/api/analyze/nope')).status).toBe(404);
    expect((await fetch(`${fm.url}/api/analyze/t`)).status).toBe(401);
  });

  it('says when fm runs without the index', async () => {
    const bare = await startFm({ args: ['--no-index'] });
    try {
      const client = await adminClient(bare);
      expect(await client.json<AnalyzeDto>('/api/analyze/')).toEqual({ state: 'off' });
    } finally {
      await bare.stop();
    }
  });
});
