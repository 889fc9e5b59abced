/**
 * The first page of a large folder from the live index (services/files/listing-indexed.ts): the
 * same bytes as the page read from the disk, for every view, and the disk's page again whenever
 * the folder changed after the index read it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SORTED_MIN } from '../../src/services/files/disk/tree-scan.ts';
import { SearchIndex } from '../../src/services/indexer/index.ts';
import { makeTree } from '../helpers/files.ts';
import { adminClient, type Client, createUser, type FmServer, startFm, tempDir } from '../helpers/server.ts';

let root: string;
let indexed: FmServer;
let walk: FmServer;
const clients: Array<{ name: string; index: Client; disk: Client }> = [];
/** What each listing asked the index for a folder it holds as it is: the answers, in order. */
const answers: boolean[] = [];

/** A folder of more entries than the scan sorts (tree-scan.ts SORTED_MIN), with names that sort in tricky ways. */
function bigFolder(dir: string, outside: string): void {
  const tree: Parameters<typeof makeTree>[1] = {
    'a10.txt': '10',
    'a9.txt': '9',
    'a009.txt': '009',
    'A9.txt': 'A9',
    'B.txt': 'B',
    'b.txt': 'b',
    'é.txt': 'e acute',
    'e.txt': 'e',
    'É.txt': 'E acute',
    'f\u0301.txt': 'combining',
    '.dot': 'hidden',
    secret: {},
    'Zed dir': {},
    dir2: {},
    dir10: {},
    'to-dir': { link: 'dir2' },
    'to-file': { link: 'b.txt' },
    'to-outside': { link: outside },
    dangling: { link: 'nowhere' },
  };
  for (let i = 0; i < SORTED_MIN; i++) tree[`file-${i}.txt`] = '';
  makeTree(dir, tree);
}

async function waitReady(admin: Client): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await admin.json<{ ready: boolean }>('/api/search-status')).ready) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the index never became ready');
}

beforeAll(async () => {
  const base = tempDir('fm-listed-');
  root = path.join(base, 'root');
  bigFolder(path.join(root, 'big'), path.join(base, 'outside'));
  makeTree(path.join(base, 'outside'), { 'x.txt': 'x' });
  // Files only: a view that sees them all reads its page straight from the index's order.
  makeTree(path.join(root, 'files'), { 'a10.txt': '', 'a9.txt': '', 'A9.txt': '', 'é.txt': '', 'e.txt': '', '.dot': '', 'Z.txt': '' });
  for (let i = 0; i < SORTED_MIN; i++) fs.writeFileSync(path.join(root, 'files', `f${i}`), '');
  makeTree(path.join(root, 'bytes'), {});
  for (let i = 0; i < SORTED_MIN; i++) fs.writeFileSync(path.join(root, 'bytes', `n${i}`), '');
  fs.writeFileSync(Buffer.from(`${root}/bytes/caf\xe9.txt`, 'latin1'), 'not UTF-8');
  // The folders look settled to the index (their ctime older than the racy window: ctime cannot be set).
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
  const listedFolder = SearchIndex.prototype.listedFolder;
  vi.spyOn(SearchIndex.prototype, 'listedFolder').mockImplementation(function (this: SearchIndex, ...args) {
    const found = listedFolder.apply(this, args);
    answers.push(found !== undefined);
    return found;
  });
  indexed = await startFm({ root });
  walk = await startFm({ root, args: ['--no-index'] });
  const admins = { index: await adminClient(indexed), disk: await adminClient(walk) };
  await waitReady(admins.index);
  clients.push({ name: 'admin', ...admins });
  const profiles: Array<[string, Record<string, unknown>]> = [
    ['nodots', { scope: '.', hideDotfiles: true }],
    [
      'ruled',
      {
        scope: '.',
        rules: [
          { regex: false, allow: false, path: '/big/secret', regexp: { raw: '' } },
          { regex: true, allow: false, path: '', regexp: { raw: 'a9' } },
        ],
      },
    ],
    ['desc', { scope: '.', sorting: { by: 'name', asc: false } }],
  ];
  for (const [name, data] of profiles) {
    clients.push({ name, index: (await createUser(admins.index, indexed, name, data)).client, disk: (await createUser(admins.disk, walk, name, data)).client });
  }
}, 60_000);

afterAll(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await indexed?.stop();
  await walk?.stop();
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

const pageOf = async (c: Client, folder: string, offset = 0) => {
  const res = await c.fetch(`/api/resources/${folder}?offset=${offset}&limit=300`);
  expect(res.status).toBe(200);
  return res.text();
};
const namesIn = (json: string) => (JSON.parse(json) as { items: Array<{ name: string }> }).items.map((i) => i.name);

describe('the first page of a large folder from the index', () => {
  it('is byte for byte the page read from the disk, for every view, at the start and further on', async () => {
    for (const c of clients) {
      for (const folder of ['big', 'files']) {
        for (const offset of [0, 300, SORTED_MIN]) {
          answers.length = 0;
          const fromIndex = await pageOf(c.index, folder, offset);
          expect(answers, `${c.name} ${folder} at ${offset}: served from the index`).toEqual([true]);
          expect(fromIndex, `${c.name} ${folder} at ${offset}`).toBe(await pageOf(c.disk, folder, offset));
        }
      }
    }
    const admin = namesIn(await pageOf(clients[0].index, 'big'));
    expect(admin.slice(0, 6)).toEqual(['dir2', 'dir10', 'secret', 'to-dir', 'Zed dir', '.dot']);
    expect(admin).not.toContain('to-outside');
    expect(namesIn(await pageOf(clients[2].index, 'big'))).not.toContain('secret');
  });

  it('leaves a folder with a name that is not UTF-8 to the disk, listed alike', async () => {
    answers.length = 0;
    const page = await pageOf(clients[0].index, 'bytes');
    expect(answers).toEqual([false]);
    expect(page).toBe(await pageOf(clients[0].disk, 'bytes'));
    expect(namesIn(page)).toContain('caf\uf7e9.txt');
  });

  it('follows a rule change between two requests', async () => {
    const { index } = clients[0];
    expect(namesIn(await pageOf(index, 'big'))).toContain('Zed dir');
    const rules = (list: unknown[]) => index.fetch('/api/settings', { method: 'PUT', json: { rules: list } });
    expect((await rules([{ regex: false, allow: false, path: '/big/Zed dir', regexp: { raw: '' } }])).status).toBe(200);
    answers.length = 0;
    expect(namesIn(await pageOf(index, 'big'))).not.toContain('Zed dir');
    expect(answers).toEqual([true]);
    expect((await rules([])).status).toBe(200);
  });

  it('shows an entry made outside fm just before the request: the folder changed, the disk answers', async () => {
    fs.mkdirSync(path.join(root, 'big', 'AAA new'));
    answers.length = 0;
    const page = await pageOf(clients[0].index, 'big');
    expect(answers).toEqual([false]);
    expect(namesIn(page)[0]).toBe('AAA new');
    expect(page).toBe(await pageOf(clients[0].disk, 'big'));
  });
});
