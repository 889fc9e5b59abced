/**
 * GET /api/public/dl/{hash}/{subpath}: files (Range, inline) and archives of folder shares in
 * every format, containing only what the link shares (SHARE, PATH, SYML, ARCH); passwords and
 * owner re-checks apply to downloads exactly as to the info route.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decompressArchive } from '../helpers/archives.ts';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { makeTree } from '../helpers/files.ts';
import { PERMS, rawGet, share, updateUser, type ShareDto } from './share-helpers.ts';

const ALGOS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'] as const;

let fm: FmServer;
let admin: Client;
let alice: { client: Client; id: number };
let docs: ShareDto;
let file: ShareDto;
let locked: ShareDto;
let work: string;

const LEAKS = /private-in-scope|sibling-prefix|outside-scope|denied-by-rule/;

beforeAll(async () => {
  fm = await startFm();
  work = tempDir('fm-share-dl-');
  makeTree(path.join(fm.root, 'alice'), {
    docs: {
      'a.txt': 'alpha',
      'b.txt': 'bravo-0123456789',
      sub: { 'deep.txt': 'deep' },
      secret: { 's.txt': 'denied-by-rule' },
      'link-out': { link: '../../bob' },
      'link-sibling': { link: '../private.txt' },
      'link-in': { link: 'sub/deep.txt' },
    },
    'docs-private': { 'p.txt': 'sibling-prefix' },
    'private.txt': 'private-in-scope',
    'notes.txt': 'shared file',
    'page.html': '<script>alert(1)</script>',
  });
  makeTree(path.join(fm.root, 'bob'), { 'outside.txt': 'outside-scope' });
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', {
    scope: '/alice',
    perm: PERMS,
    rules: [{ allow: false, path: '/docs/secret', regex: false, regexp: { raw: '' } }],
  });
  docs = await share(alice.client, '/docs');
  file = await share(alice.client, '/notes.txt');
  locked = await share(alice.client, '/docs', { password: 'open sesame' });
});

afterAll(async () => {
  await fm?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The entries of a downloaded archive and the concatenated contents of its files. */
async function archive(algo: string, body: Buffer): Promise<{ names: string[]; contents: string }> {
  const dir = fs.mkdtempSync(path.join(work, `${algo}-`));
  const file = path.join(dir, 'archive');
  const kind = await decompressArchive(algo, body, file);
  const into = path.join(dir, 'out');
  fs.mkdirSync(into);
  if (kind === 'tar') execFileSync('tar', ['-xf', file, '-C', into]);
  else execFileSync('unzip', ['-q', file, '-d', into]);
  const names: string[] = [];
  let contents = '';
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      names.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else contents += fs.readFileSync(path.join(d, e.name), 'utf8');
    }
  };
  walk(into, '');
  return { names: names.sort(), contents };
}

describe('file shares', () => {
  it('download the file whatever the subpath, as an attachment', async () => {
    for (const sub of ['', '/', '/notes.txt', '/other-name.bin', '/a/b/c']) {
      const res = await rawGet(fm.url, `/api/public/dl/${file.hash}${sub}`);
      expect(res.status, sub).toBe(200);
      expect(res.text).toBe('shared file');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="notes.txt"/);
    }
  });

  it('serve ranges and inline views under the user-file CSP', async () => {
    const range = await rawGet(fm.url, `/api/public/dl/${file.hash}`, { Range: 'bytes=0-5' });
    expect(range.status).toBe(206);
    expect(range.text).toBe('shared');
    expect(range.headers['content-range']).toBe('bytes 0-5/11');
    const inline = await rawGet(fm.url, `/api/public/dl/${file.hash}?inline=true`);
    expect(inline.headers['content-disposition']).toMatch(/^inline/);
    const html = await share(alice.client, '/page.html');
    const page = await rawGet(fm.url, `/api/public/dl/${html.hash}?inline=true`);
    expect(page.headers['content-security-policy']).toMatch(/sandbox/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuse a subpath that climbs, without revealing anything', async () => {
    const res = await rawGet(fm.url, `/api/public/dl/${file.hash}/../private.txt`);
    expect(res.status).toBe(403);
    expect(res.text).not.toMatch(LEAKS);
  });

  it('ignore ?files= (a file share has no folder to select from)', async () => {
    const res = await rawGet(fm.url, `/api/public/dl/${file.hash}?files=${encodeURIComponent('../private.txt')}&algo=zip`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('shared file');
  });
});

describe('folder shares', () => {
  it('download a file by subpath with Range', async () => {
    const res = await rawGet(fm.url, `/api/public/dl/${docs.hash}/b.txt`, { Range: 'bytes=6-9' });
    expect(res.status).toBe(206);
    expect(res.text).toBe('0123');
    expect((await rawGet(fm.url, `/api/public/dl/${docs.hash}/link-in`)).text).toBe('deep');
  });

  for (const algo of ALGOS) {
    it(`ARCH: a ${algo} archive of the share holds only the shared, allowed entries`, async () => {
      const res = await rawGet(fm.url, `/api/public/dl/${docs.hash}?algo=${algo}`);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/filename="docs\./);
      const { names, contents } = await archive(algo, res.body);
      expect(names.filter((n) => !n.endsWith('/'))).toEqual(['a.txt', 'b.txt', 'link-in', 'sub/deep.txt'].sort());
      expect(contents).not.toMatch(LEAKS);
    });
  }

  it('a ?files= selection stays inside the share', async () => {
    const ok = await rawGet(fm.url, `/api/public/dl/${docs.hash}?files=${encodeURIComponent('a.txt,sub')}&algo=tar`);
    expect(ok.status).toBe(200);
    const { names } = await archive('tar', ok.body);
    expect(names.filter((n) => !n.endsWith('/'))).toEqual(['a.txt', 'sub/deep.txt']);
    for (const sel of [
      '../private.txt',
      '../docs-private',
      'a.txt,../private.txt',
      '%2e%2e/private.txt',
      'link-out',
      'link-sibling',
      'secret',
      'secret/s.txt',
      '..\\private.txt',
    ]) {
      const res = await rawGet(fm.url, `/api/public/dl/${docs.hash}?files=${encodeURIComponent(sel)}&algo=tar`);
      expect([400, 403, 404], sel).toContain(res.status);
      expect(res.text, sel).not.toMatch(LEAKS);
    }
  });

  it('PATH/SYML: traversal and escaping links in the subpath are refused', async () => {
    for (const sub of [
      '/../private.txt',
      '/..%2fprivate.txt',
      '/%2e%2e/private.txt',
      '/sub/../../private.txt',
      '/..%5cprivate.txt',
      '/../docs-private/p.txt',
      '/link-out/outside.txt',
      '/link-sibling',
      '/secret/s.txt',
      '/secret',
    ]) {
      const res = await rawGet(fm.url, `/api/public/dl/${docs.hash}${sub}`);
      expect([400, 403, 404], sub).toContain(res.status);
      expect(res.text, sub).not.toMatch(LEAKS);
    }
  });

  it('SYML: an archive of a symlinked shared folder leaves out what rules deny at the real path', async () => {
    makeTree(path.join(fm.root, 'alice'), { real: { 'open.txt': 'open', hidden: { 'h.txt': 'denied-by-rule' } }, 'via-link': { link: 'real' } });
    await updateUser(admin, fm, alice.id, { rules: [{ allow: false, path: '/real/hidden', regex: false, regexp: { raw: '' } }] });
    try {
      const s = await share(alice.client, '/via-link');
      const res = await rawGet(fm.url, `/api/public/dl/${s.hash}?algo=tar`);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/filename="via-link\.tar"/);
      const { names, contents } = await archive('tar', res.body);
      expect(names).toEqual(['open.txt']);
      expect(contents).not.toMatch(LEAKS);
      expect((await rawGet(fm.url, `/api/public/dl/${s.hash}/hidden/h.txt`)).status).toBe(403);
    } finally {
      await updateUser(admin, fm, alice.id, { rules: [{ allow: false, path: '/docs/secret', regex: false, regexp: { raw: '' } }] });
    }
  });

  it('a subfolder downloads as an archive named after it', async () => {
    const res = await rawGet(fm.url, `/api/public/dl/${docs.hash}/sub?algo=zip`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="sub\.zip"/);
    expect((await archive('zip', res.body)).names).toEqual(['deep.txt']);
  });
});

describe('passwords and re-checks apply to downloads', () => {
  it('SHARE 3v48-283x-f2w4: 401 without credentials or with wrong ones; the header or the token opens it', async () => {
    expect((await rawGet(fm.url, `/api/public/dl/${locked.hash}/a.txt`)).status).toBe(401);
    expect((await rawGet(fm.url, `/api/public/dl/${locked.hash}?algo=zip`)).status).toBe(401);
    expect((await rawGet(fm.url, `/api/public/dl/${locked.hash}/a.txt`, { 'X-SHARE-PASSWORD': 'nope' })).status).toBe(401);
    expect((await rawGet(fm.url, `/api/public/dl/${locked.hash}/a.txt?token=nope`)).status).toBe(401);
    const withHeader = await rawGet(fm.url, `/api/public/dl/${locked.hash}/a.txt`, { 'X-SHARE-PASSWORD': encodeURIComponent('open sesame') });
    expect(withHeader.text).toBe('alpha');
    const info = (await (await fetch(`${fm.url}/api/public/share/${locked.hash}`, { headers: { 'X-SHARE-PASSWORD': 'open%20sesame' } })).json()) as {
      token: string;
    };
    const withToken = await rawGet(fm.url, `/api/public/dl/${locked.hash}/a.txt?token=${info.token}`);
    expect(withToken.status).toBe(200);
    expect(withToken.text).toBe('alpha');
  });

  it('SHARE v9w4-gm2x-6rvf: the owner losing share permission stops downloads', async () => {
    await updateUser(admin, fm, alice.id, { perm: { ...PERMS, share: false } });
    expect((await rawGet(fm.url, `/api/public/dl/${file.hash}`)).status).toBe(403);
    expect((await rawGet(fm.url, `/api/public/dl/${docs.hash}?algo=zip`)).status).toBe(403);
    await updateUser(admin, fm, alice.id, { perm: PERMS });
    expect((await rawGet(fm.url, `/api/public/dl/${file.hash}`)).status).toBe(200);
  });

  it('unknown links are 404', async () => {
    expect((await rawGet(fm.url, '/api/public/dl/AAAAAAAAAAAA/a.txt')).status).toBe(404);
    expect((await rawGet(fm.url, '/api/public/dl/')).status).toBe(404);
  });
});
