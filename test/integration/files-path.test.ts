/**
 * PATH: traversal and canonicalisation attempts on every files route, in the URL path and in
 * the `destination` and `files` parameters. Each answers 400, 403 or 404 and touches nothing
 * outside the user's scope (a canary beside the root, a neighbour's folder inside it).
 * Requests go through node:http so the raw bytes reach the server (fetch would normalise them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { canary, listTree, makeTree, rawRequest } from '../helpers/files.ts';
import { PATH_ESCAPES } from '../helpers/traversal.ts';

let fm: FmServer;
let alice: Client;
let outside: ReturnType<typeof canary>;
let before: { root: string[]; bob: string[] };
const SECRET = 'bob-secret-content';

/** Attempts to leave alice's scope (root/alice) through the URL path. */
const ESCAPES = PATH_ESCAPES;

/** Destination values (before the query-string encoding) that try to leave the scope. */
const DEST_ESCAPES = [
  '/../canary-copy.txt',
  '../canary-copy.txt',
  '/../bob/stolen.txt',
  '%2e%2e%2fbob%2fstolen.txt',
  '/x/../../bob/stolen.txt',
  '\\..\\bob\\stolen.txt',
  '..%5cbob%5cstolen.txt',
  '/stolen%00.txt',
  '%ff/stolen.txt',
  `/${'b'.repeat(300)}`,
];

const ok = [400, 403, 404];

function expectUntouched() {
  expect(outside.unchanged()).toBe(true);
  expect(fs.readFileSync(path.join(fm.root, 'bob', 'secret.txt'), 'utf8')).toBe(SECRET);
  expect(listTree(path.join(fm.root, 'bob'))).toEqual(before.bob);
  expect(fs.readdirSync(fm.root).sort()).toEqual(before.root);
}

beforeAll(async () => {
  fm = await startFm();
  outside = canary(fm.home);
  makeTree(fm.root, {
    alice: { 'ok.txt': 'alice ok', a: { 'file.txt': 'rule-denied-content' }, ab: { 'file.txt': 'sibling' }, 'a.txt': 'not the folder' },
    bob: { 'secret.txt': SECRET },
  });
  before = { root: fs.readdirSync(fm.root).sort(), bob: listTree(path.join(fm.root, 'bob')) };
  const admin = await adminClient(fm);
  const rule = { regex: false, allow: false, path: '/a', regexp: { raw: '' } };
  alice = (
    await createUser(admin, fm, 'alice', {
      scope: '/alice',
      rules: [rule],
      perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true },
    })
  ).client;
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});

const send = (method: string, p: string, body?: string) => rawRequest(fm.url, p, { method, headers: { 'X-Auth': alice.token }, body });

describe('PATH: escapes in the URL path', () => {
  for (const route of ['/api/resources', '/api/raw']) {
    for (const method of route === '/api/raw' ? ['GET'] : ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      it(`${method} ${route}: every escape answers 400/403/404`, async () => {
        for (const attempt of ESCAPES) {
          const suffix = method === 'PATCH' ? `?action=copy&destination=${encodeURIComponent('/copied.txt')}` : method === 'POST' ? '?override=true' : '';
          const res = await send(method, `${route}${attempt}${suffix}`, method === 'POST' || method === 'PUT' ? 'pwned' : undefined);
          expect.soft(ok, `${method} ${route}${attempt} -> ${res.status} ${res.text.slice(0, 80)}`).toContain(res.status);
          expect(res.text).not.toContain(SECRET);
          expect(res.text).not.toContain('canary');
        }
        expectUntouched();
        expect(fs.existsSync(path.join(fm.root, 'alice', 'copied.txt'))).toBe(false);
      });
    }
  }
});

describe('PATH: escapes in parameters', () => {
  for (const action of ['copy', 'rename']) {
    it(`PATCH ${action}: every destination escape answers 400/403/404`, async () => {
      for (const dest of DEST_ESCAPES) {
        const res = await send('PATCH', `/api/resources/ok.txt?action=${action}&destination=${encodeURIComponent(dest)}&override=true`);
        expect.soft(ok, `${action} -> ${dest}: ${res.status} ${res.text}`).toContain(res.status);
      }
      // Raw, un-encoded query bytes too.
      for (const raw of ['..%2F..%2Fcanary.txt', '%2F..%2Fbob%2Fstolen.txt', '/../bob/x', '..\\x']) {
        const res = await send('PATCH', `/api/resources/ok.txt?action=${action}&destination=${raw}`);
        expect.soft(ok, `${action} -> raw ${raw}: ${res.status}`).toContain(res.status);
      }
      expectUntouched();
      expect(fs.readFileSync(path.join(fm.root, 'alice', 'ok.txt'), 'utf8')).toBe('alice ok');
    });
  }

  it('GET /api/raw?files=: every escape answers 400/403/404 and no archive is sent', async () => {
    const lists = [
      '/../canary.txt',
      '/ok.txt,/../canary.txt',
      '/../bob',
      '/ok.txt,/../bob/secret.txt',
      '..%2Fbob%2Fsecret.txt',
      '%2e%2e/canary.txt',
      '/%00',
      '/%ff',
      '/a',
      '/ok.txt,/a/file.txt',
    ];
    for (const list of lists) {
      const res = await send('GET', `/api/raw/?files=${encodeURIComponent(list)}`);
      expect.soft(ok, `files=${list}: ${res.status}`).toContain(res.status);
      expect(res.body.includes(Buffer.from(SECRET))).toBe(false);
      expect(res.body.includes(Buffer.from('rule-denied-content'))).toBe(false);
    }
    // and with the folder part of the URL escaping
    const res = await send('GET', `/api/raw/..?files=${encodeURIComponent('/bob/secret.txt')}`);
    expect(ok).toContain(res.status);
    expectUntouched();
  });
});

describe('PATH: absolute paths and doubled slashes stay inside the scope', () => {
  it('"//etc/passwd" is alice\'s /etc/passwd (missing), never the system file', async () => {
    for (const p of ['//etc/passwd', '/%2fetc%2fpasswd', `/${fm.home}/canary.txt`, `//${outside.path}`]) {
      const res = await send('GET', `/api/raw${p}`);
      expect(res.status, p).toBe(404);
      expect(res.text).not.toContain('root:');
    }
  });

  it('creating "//tmp/x" creates it under the scope', async () => {
    const res = await send('POST', '/api/resources//tmp/fm-path-test.txt', 'inside');
    expect(res.status).toBe(200);
    expect(fs.readFileSync(path.join(fm.root, 'alice', 'tmp', 'fm-path-test.txt'), 'utf8')).toBe('inside');
    expect(fs.existsSync('/tmp/fm-path-test.txt')).toBe(false);
  });

  it('percent-encoded names that only look like dots are ordinary names', async () => {
    const res = await send('POST', '/api/resources/%252e%252e', 'literal');
    expect(res.status).toBe(200);
    expect(fs.readFileSync(path.join(fm.root, 'alice', '%2e%2e'), 'utf8')).toBe('literal');
    expectUntouched();
  });
});

describe('PATH: rules match on segment boundaries, after cleaning (GHSA-5q48, GHSA-4mh3, GHSA-9f3r)', () => {
  const denied = [
    '/a',
    '/a/',
    '/a/file.txt',
    '//a/file.txt',
    '/./a/file.txt',
    '/a/./file.txt',
    '/ab/../a/file.txt',
    '/%61/file.txt',
    '/a%2ffile.txt',
    '/a%5cfile.txt',
    '///a//file.txt',
  ];

  it('every spelling of a denied path is 403 on every route', async () => {
    for (const p of denied) {
      for (const [method, route] of [
        ['GET', '/api/resources'],
        ['GET', '/api/raw'],
        ['DELETE', '/api/resources'],
        ['PUT', '/api/resources'],
        ['POST', '/api/resources'],
      ] as const) {
        const res = await send(method, `${route}${p}${method === 'POST' ? '?override=true' : ''}`, method === 'PUT' || method === 'POST' ? 'x' : undefined);
        expect.soft(res.status, `${method} ${route}${p}`).toBe(403);
      }
    }
    expect(fs.readFileSync(path.join(fm.root, 'alice', 'a', 'file.txt'), 'utf8')).toBe('rule-denied-content');
  });

  it('the sibling /ab and the file /a.txt are not denied by the rule on /a', async () => {
    const r1 = await send('GET', '/api/raw/ab/file.txt');
    expect(r1.status).toBe(200);
    expect(r1.text).toBe('sibling');
    expect((await send('GET', '/api/raw/a.txt')).status).toBe(200);
  });

  it('the denied folder is neither a copy/move source nor a destination', async () => {
    expect((await send('PATCH', `/api/resources/a?action=copy&destination=${encodeURIComponent('/stolen')}`)).status).toBe(403);
    expect((await send('PATCH', `/api/resources/ok.txt?action=copy&destination=${encodeURIComponent('//a/planted.txt')}`)).status).toBe(403);
    expect((await send('PATCH', `/api/resources/ok.txt?action=rename&destination=${encodeURIComponent('/ab/../a/planted.txt')}`)).status).toBe(403);
    expect(fs.existsSync(path.join(fm.root, 'alice', 'stolen'))).toBe(false);
    expect(fs.existsSync(path.join(fm.root, 'alice', 'a', 'planted.txt'))).toBe(false);
  });

  it('the denied folder is left out of listings and archives', async () => {
    const listing = JSON.parse((await send('GET', '/api/resources/')).text) as { items: Array<{ name: string }> };
    expect(listing.items.map((i) => i.name)).not.toContain('a');
    expect(listing.items.map((i) => i.name)).toContain('ab');
    const zip = await send('GET', '/api/raw/?algo=tar');
    expect(zip.status).toBe(200);
    expect(zip.body.includes(Buffer.from('rule-denied-content'))).toBe(false);
    expect(zip.body.includes(Buffer.from('sibling'))).toBe(true);
  });
});
