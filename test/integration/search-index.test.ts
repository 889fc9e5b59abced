/**
 * The live search index answers exactly what the walk answers (rules, dotfiles, scope, unicode),
 * sees changes made outside fm within 2 s, and survives a restart, reconciling what changed
 * while fm was down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';

interface Line {
  dir: boolean;
  path: string;
}

async function search(client: Client, dir: string, query: string): Promise<string[]> {
  const res = await client.fetch(`/api/search${dir}?query=${encodeURIComponent(query)}`);
  if (res.status !== 200) return [`HTTP ${res.status}`];
  return (await res.text())
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const line = JSON.parse(l) as Line;
      return `${line.dir ? 'd' : 'f'} ${line.path}`;
    })
    .sort();
}

async function waitReady(admin: Client): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const status = (await admin.json<{ ready: boolean }>('/api/search-status')) as { ready: boolean };
    if (status.ready) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the index never became ready');
}

/** Polls a search until `predicate` holds, for at most `ms`. */
async function eventually(fn: () => Promise<string[]>, predicate: (r: string[]) => boolean, ms = 2000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let last = await fn();
  while (!predicate(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await fn();
  }
  return last;
}

function put(root: string, rel: string, data = 'x') {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}

const QUERIES = [
  'report',
  'REPORT',
  'case:sensitive Report',
  '"report draft"',
  'type:image',
  'type:pdf report',
  'ext:md',
  'size>1k',
  'modified<1d',
  'modified>2021-01-01 report',
  '名前',
  'é',
  'x',
  '.hidden',
  'sub',
];

describe('search index', () => {
  let root: string;
  let walk: FmServer;
  let indexed: FmServer;
  let walkAdmin: Client;
  let indexAdmin: Client;
  const users: Array<{ walk: Client; index: Client; name: string }> = [];

  beforeAll(async () => {
    root = path.join(tempDir('fm-index-'), 'root');
    put(root, 'docs/Report 2024.pdf', 'x'.repeat(3000));
    put(root, 'docs/report draft.txt');
    put(root, 'docs/notes.md');
    put(root, 'docs/private/secret-report.txt');
    put(root, 'docs/privateer/report-ok.txt');
    put(root, 'photos/Beach.JPG');
    put(root, 'photos/.thumbs/report-cache.txt');
    put(root, 'ünïcode/名前-report.md');
    put(root, 'ünïcode/café.txt');
    // Names that are not UTF-8 (bytes 0xE9, 0xE8), hits in and below such a folder.
    fs.mkdirSync(Buffer.from(`${root}/bytes\xe9/deep`, 'latin1'), { recursive: true });
    fs.writeFileSync(Buffer.from(`${root}/bytes\xe9/report-\xe8.txt`, 'latin1'), 'b');
    fs.writeFileSync(Buffer.from(`${root}/bytes\xe9/deep/report-deep.txt`, 'latin1'), 'b');
    put(root, '.hidden-report.txt');
    put(root, 'home/bob/report-bob.txt');
    put(root, 'home/bob/sub/deeper/report-deep.txt');
    put(root, 'old/report-old.txt');
    fs.utimesSync(path.join(root, 'old/report-old.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    fs.symlinkSync('/etc', path.join(root, 'escaping-report-link'));
    fs.symlinkSync('docs', path.join(root, 'inner-report-link'));

    walk = await startFm({ root, args: ['--no-index'] });
    indexed = await startFm({ root, keep: true });
    walkAdmin = await adminClient(walk);
    indexAdmin = await adminClient(indexed);
    await waitReady(indexAdmin);
    const profiles: Array<[string, Record<string, unknown>]> = [
      [
        'ruled',
        {
          rules: [
            { regex: false, allow: false, path: '/docs/private', regexp: { raw: '' } },
            { regex: true, allow: false, path: '', regexp: { raw: '^/photos$' } },
          ],
        },
      ],
      ['nodots', { hideDotfiles: true }],
      ['scoped', { scope: '/home/bob' }],
    ];
    for (const [name, data] of profiles) {
      users.push({ name, walk: (await createUser(walkAdmin, walk, name, data)).client, index: (await createUser(indexAdmin, indexed, name, data)).client });
    }
  });

  afterAll(async () => {
    await walk?.stop();
    await indexed?.stop();
    fs.rmSync(indexed.home, { recursive: true, force: true });
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  });

  it('answers every query exactly as the walk does, for every kind of user and folder', async () => {
    const pairs: Array<[string, Client, Client]> = [['admin', walkAdmin, indexAdmin], ...users.map((u): [string, Client, Client] => [u.name, u.walk, u.index])];
    for (const [who, w, i] of pairs) {
      for (const dir of ['/', '/docs', who === 'scoped' ? '/sub' : '/ünïcode']) {
        for (const q of QUERIES) {
          const expected = await search(w, encodeURI(dir), q);
          expect(await search(i, encodeURI(dir), q), `${who} ${dir} ${q}`).toEqual(expected);
        }
      }
    }
    // Sanity: the fixture really exercises rules, dotfiles and scope.
    expect(await search(indexAdmin, '/', 'report')).toContain('f docs/private/secret-report.txt');
    expect(await search(indexAdmin, '/', 'report')).toEqual(expect.arrayContaining(['f bytes\uf7e9/report-\uf7e8.txt', 'f bytes\uf7e9/deep/report-deep.txt']));
    expect(await search(users[0].index, '/', 'report')).not.toContain('f docs/private/secret-report.txt');
    expect(await search(users[0].index, '/', 'report')).not.toContain('f photos/.thumbs/report-cache.txt');
    expect(await search(users[1].index, '/', 'report')).not.toContain('f .hidden-report.txt');
    expect(await search(users[2].index, '/', 'report')).toEqual(['f report-bob.txt', 'f sub/deeper/report-deep.txt']);
  });

  it('gives each result the same size, modified time and type as the walk does', async () => {
    const lines = async (client: Client, q: string) => {
      const res = await client.fetch(`/api/search/?query=${encodeURIComponent(q)}`);
      return (await res.text())
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .sort((a, b) => String(a.path).localeCompare(String(b.path)));
    };
    for (const q of ['report', 'type:image', 'docs']) {
      const expected = await lines(walkAdmin, q);
      expect(expected.length, q).toBeGreaterThan(0);
      expect(await lines(indexAdmin, q), q).toEqual(expected);
    }
    const [pdf] = (await lines(indexAdmin, '"Report 2024"')).filter((l) => !l.dir);
    expect(pdf).toMatchObject({ size: fs.statSync(path.join(root, String(pdf.path))).size, type: 'pdf' });
  });

  it('lists folder sizes from the index with ?dirsizes=true, without walking, and keeps them fresh', async () => {
    type Listing = { items: Array<{ name: string; isDir: boolean; dirSize?: number }> };
    const sizes = async () => {
      const listing = await indexAdmin.json<Listing>('/api/resources/?dirsizes=true');
      return Object.fromEntries(listing.items.filter((i) => i.isDir).map((i) => [i.name, i.dirSize]));
    };
    expect(await sizes()).toMatchObject({ docs: 3004, home: 2, photos: 2, old: 1 });
    const plain = await indexAdmin.json<Listing>('/api/resources/');
    expect(plain.items.some((i) => 'dirSize' in i)).toBe(false);
    put(root, 'docs/private/grown.bin', 'y'.repeat(500));
    const deadline = Date.now() + 2000;
    while ((await sizes()).docs !== 3504 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await sizes()).docs).toBe(3504);
    fs.rmSync(path.join(root, 'docs/private/grown.bin'));
  });

  it('sees files created, renamed and deleted outside fm within 2 seconds', async () => {
    put(root, 'docs/outside-made.txt');
    expect(
      await eventually(
        () => search(indexAdmin, '/', 'outside-made'),
        (r) => r.length === 1,
      ),
    ).toEqual(['f docs/outside-made.txt']);
    fs.renameSync(path.join(root, 'docs/outside-made.txt'), path.join(root, 'docs/outside-renamed.txt'));
    expect(
      await eventually(
        () => search(indexAdmin, '/', 'outside-'),
        (r) => r.includes('f docs/outside-renamed.txt') && r.length === 1,
      ),
    ).toEqual(['f docs/outside-renamed.txt']);
    fs.rmSync(path.join(root, 'docs/outside-renamed.txt'));
    expect(
      await eventually(
        () => search(indexAdmin, '/', 'outside-'),
        (r) => r.length === 0,
      ),
    ).toEqual([]);
  });

  it('streams every hit once when there are more than one batch of them', async () => {
    // The index hands hits over in batches of 1,000 (services/search/indexed.ts).
    const staging = path.join(path.dirname(root), 'many-staging');
    fs.mkdirSync(staging);
    for (let i = 0; i < 2345; i++) fs.writeFileSync(path.join(staging, `batch-${i}.txt`), '');
    fs.renameSync(staging, path.join(root, 'many'));
    const hits = await eventually(
      () => search(indexAdmin, '/', 'batch-'),
      (r) => r.length >= 2345,
      5000,
    );
    expect(hits).toEqual(await search(walkAdmin, '/', 'batch-'));
    expect(new Set(hits).size).toBe(2345);
    fs.rmSync(path.join(root, 'many'), { recursive: true });
  });

  it('reports its state to admins only', async () => {
    const status = await indexAdmin.json<{ ready: boolean; entries: number; watching: string }>('/api/search-status');
    expect(status.ready).toBe(true);
    expect(status.entries).toBeGreaterThan(15);
    expect(status.watching).toBe('watcher');
    expect((await users[0].index.fetch('/api/search-status')).status).toBe(403);
  });

  it('keeps its index across a restart and reconciles what changed while fm was down', async () => {
    const home = indexed.home;
    // Stop without deleting the home folder (it holds the database and the index snapshot).
    await indexed.stop();
    put(root, 'docs/added-while-down.txt');
    fs.rmSync(path.join(root, 'docs/notes.md'));
    fs.renameSync(path.join(root, 'old'), path.join(root, 'older'));
    indexed = await startFm({ root, home });
    // Same database, same signing key: the admin's token is still good.
    const token = indexAdmin.token;
    indexAdmin = new Client(indexed.url);
    indexAdmin.token = token;
    await waitReady(indexAdmin);
    expect(indexed.output()).toContain('search index: loaded');
    expect(await search(indexAdmin, '/', 'added-while-down')).toEqual(['f docs/added-while-down.txt']);
    expect(await search(indexAdmin, '/', 'notes')).toEqual([]);
    expect(await search(indexAdmin, '/', 'report-old')).toEqual(['f older/report-old.txt']);
  });
});
