import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, type Client } from '../helpers/server.ts';
import { OUTSIDE_SECRET, TRAVERSALS, rawGet, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;

interface Line {
  dir: boolean;
  path: string;
}

function put(rel: string, data: string | Buffer = 'x') {
  const abs = path.join(fm.root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}

/** Runs a search and returns the non-empty NDJSON lines, sorted by path. */
async function search(client: Client, dir: string, query: string): Promise<Line[]> {
  const res = await client.fetch(`/api/search${dir}?query=${encodeURIComponent(query)}`);
  if (res.status !== 200) throw new Error(`search ${dir} ${query}: ${res.status} ${await res.text()}`);
  const lines = (await res.text()).split('\n').filter((l) => l.trim() !== '');
  return lines
    .map((l) => {
      const { dir, path } = JSON.parse(l) as Line;
      return { dir, path };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}
const paths = (lines: Line[]) => lines.map((l) => l.path);

beforeAll(async () => {
  // The walk's semantics; search-index.test.ts checks that the index answers the same.
  fm = await startMediaFm(['--no-index']);
  admin = await adminClient(fm);
  put('docs/Report 2024.pdf', 'x'.repeat(3000));
  put('docs/report-draft.txt');
  put('docs/notes.md');
  put('docs/private/secret-report.txt');
  put('docs/privateer/report-ok.txt');
  put('photos/Beach.JPG');
  put('photos/city.png');
  put('photos/.thumbs/report-cache.txt');
  put('music/song.flac');
  put('videos/clip.mkv');
  put('.hidden-report.txt');
  put('users/bob/report-bob.txt');
  put('users/alice/report-alice.txt');
  fs.mkdirSync(path.join(fm.root, 'reports'));
  put('old/report-old.txt');
  const old = new Date('2020-01-01T00:00:00Z');
  fs.utimesSync(path.join(fm.root, 'old/report-old.txt'), old, old);
  fs.symlinkSync(path.join(fm.outside, 'outside-secret.txt'), path.join(fm.root, 'escaping-report-link'));
  fs.symlinkSync(fm.outside, path.join(fm.root, 'escaping-dir-report'));
});

afterAll(async () => {
  await fm?.stop();
});

describe('GET /api/search', () => {
  it('streams NDJSON lines {dir, path, size, modified, type} with paths relative to the searched folder', async () => {
    const res = await admin.fetch('/api/search/docs?query=report');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    expect(lines.every((l) => Object.keys(l).sort().join() === 'dir,modified,path,size,type')).toBe(true);
    const pdf = lines.find((l) => l.path === 'Report 2024.pdf') as unknown as Record<string, unknown>;
    const st = fs.statSync(path.join(fm.root, 'docs/Report 2024.pdf'));
    expect(pdf).toMatchObject({ dir: false, size: 3000, type: 'pdf' });
    expect(pdf.modified).toBe(new Date(st.mtimeMs).toISOString());
    expect(paths(lines).sort()).toEqual(['Report 2024.pdf', 'private/secret-report.txt', 'privateer/report-ok.txt', 'report-draft.txt']);
  });

  it('matches names containing ANY term, case-insensitively, folders included', async () => {
    const found = await search(admin, '/', 'beach reports');
    expect(found).toEqual([
      { dir: false, path: 'photos/Beach.JPG' },
      { dir: true, path: 'reports' },
    ]);
  });

  it('keeps a "quoted phrase" as one term', async () => {
    expect(paths(await search(admin, '/docs', '"report 2024"'))).toEqual(['Report 2024.pdf']);
    expect(paths(await search(admin, '/docs', 'report 2024'))).toHaveLength(4);
  });

  it('case:sensitive', async () => {
    expect(paths(await search(admin, '/docs', 'case:sensitive Report'))).toEqual(['Report 2024.pdf']);
  });

  it('type:image|audio|video|pdf and type:<ext> / ext:', async () => {
    expect(paths(await search(admin, '/', 'type:image'))).toEqual(['photos/Beach.JPG', 'photos/city.png']);
    expect(paths(await search(admin, '/', 'type:audio type:video'))).toEqual(['music/song.flac', 'videos/clip.mkv']);
    expect(paths(await search(admin, '/', 'type:pdf'))).toEqual(['docs/Report 2024.pdf']);
    expect(paths(await search(admin, '/', 'type:md'))).toEqual(['docs/notes.md']);
    expect(paths(await search(admin, '/', 'ext:png,md'))).toEqual(['docs/notes.md', 'photos/city.png']);
  });

  it('filters by size and modification time', async () => {
    expect(paths(await search(admin, '/', 'size>2k'))).toEqual(['docs/Report 2024.pdf']);
    expect(paths(await search(admin, '/docs', 'size<1k report'))).toEqual(['private/secret-report.txt', 'privateer/report-ok.txt', 'report-draft.txt']);
    expect(paths(await search(admin, '/old', 'modified<2021-01-01'))).toEqual(['report-old.txt']);
    expect(paths(await search(admin, '/', 'modified>2021-01-01 report-old'))).toEqual([]);
    expect(paths(await search(admin, '/', 'modified<7d report-old'))).toEqual([]);
    expect(paths(await search(admin, '/', 'modified>365d report'))).toEqual(['old/report-old.txt']);
  });

  it('answers 400 for a malformed filter, 400 for a file, 404 for a missing folder, 401 without login', async () => {
    const bad = await admin.fetch('/api/search/?query=size%3Ehuge');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('size>huge');
    expect((await admin.fetch('/api/search/docs/notes.md?query=x')).status).toBe(400);
    expect((await admin.fetch('/api/search/nowhere?query=x')).status).toBe(404);
    expect((await fetch(`${fm.url}/api/search/?query=x`)).status).toBe(401);
  });

  it('an empty query lists everything under the folder', async () => {
    expect(paths(await search(admin, '/photos', ''))).toEqual(
      ['photos/.thumbs', 'photos/.thumbs/report-cache.txt', 'photos/Beach.JPG', 'photos/city.png'].map((p) => p.slice('photos/'.length)),
    );
  });

  it('streams large result sets in several chunks', async () => {
    for (let i = 0; i < 2000; i++) put(`many/d${i % 50}/match-${i}.txt`);
    const res = await admin.fetch('/api/search/many?query=match');
    const reader = res.body!.getReader();
    let chunks = 0;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks++;
      text += Buffer.from(value).toString();
    }
    expect(chunks).toBeGreaterThan(1);
    expect(text.split('\n').filter(Boolean)).toHaveLength(2000);
  });

  it('a client that disconnects mid-stream does not disturb the server', async () => {
    for (let i = 0; i < 3000; i++) put(`huge/d${i % 100}/e${i}.txt`);
    const controller = new AbortController();
    const res = await admin.fetch('/api/search/?query=e', { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
    expect(paths(await search(admin, '/docs', 'notes'))).toEqual(['notes.md']);
    expect(fm.output()).not.toMatch(/error:/);
  });
});

describe('search security', () => {
  it('AUTHZ: rule-denied folders are pruned and regex-denied names dropped; segment boundaries hold', async () => {
    const { client } = await createUser(admin, fm, 'ruled', {
      perm: { download: false },
      rules: [
        { path: '/docs/private', allow: false },
        { regex: true, regexp: { raw: '\\.pdf$' }, allow: false },
      ],
    });
    const found = paths(await search(client, '/', 'report'));
    expect(found).not.toContain('docs/private/secret-report.txt');
    expect(found).not.toContain('docs/Report 2024.pdf');
    expect(found).toContain('docs/privateer/report-ok.txt');
    expect((await client.fetch('/api/search/docs/private?query=report')).status).toBe(403);
  });

  it('AUTHZ: hidden dotfiles and everything under dot-folders stay hidden', async () => {
    const { client } = await createUser(admin, fm, 'nodots', { hideDotfiles: true });
    const found = paths(await search(client, '/', 'report'));
    expect(found.some((p) => p.split('/').some((s) => s.startsWith('.')))).toBe(false);
    expect(found).toContain('docs/report-draft.txt');
    expect((await admin.fetch('/api/search/?query=hidden-report')).status).toBe(200);
    expect(paths(await search(admin, '/', 'hidden-report'))).toEqual(['.hidden-report.txt']);
  });

  it('AUTHZ: a scoped user finds only inside their scope, with paths relative to it', async () => {
    const { client } = await createUser(admin, fm, 'bob', { scope: '/users/bob' });
    expect(paths(await search(client, '/', 'report'))).toEqual(['report-bob.txt']);
    expect((await rawGet(fm.url, '/api/search/../alice?query=report', client.token)).status).toBe(403);
  });

  it('SYML: links leading out of the scope are neither listed nor followed', async () => {
    const found = paths(await search(admin, '/', 'outside'));
    expect(found).toEqual([]);
    const all = paths(await search(admin, '/', 'report'));
    expect(all.some((p) => p.includes('escaping'))).toBe(false);
  });

  it('PATH: traversal attempts get 400/403/404 and never reveal anything outside the root', async () => {
    for (const t of TRAVERSALS) {
      const res = await rawGet(fm.url, `/api/search${t}?query=outside`, admin.token);
      expect([400, 403, 404], `${t} → ${res.status}`).toContain(res.status);
      expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
      expect(res.body.toString('latin1')).not.toContain('outside-secret');
    }
  });
});
