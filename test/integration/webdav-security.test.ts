/**
 * WebDAV behind the gate: the traversal atlas of the files API (test/integration/files-path.test.ts)
 * replayed on every WebDAV method and in the Destination header, links leaving the scope, rules
 * and hidden entries, XML bodies that try XXE or entity expansion, lock tokens of another user,
 * and sign-in (Basic only, throttled like the login, refused cross-site).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { canary, listTree, makeTree } from '../helpers/files.ts';
import { rawRequest } from '../helpers/http-raw.ts';
import { davClient, hrefs, LOCK_BODY, type Dav } from '../helpers/dav.ts';
import { PATH_ESCAPES } from '../helpers/traversal.ts';

let fm: FmServer;
let alice: Dav;
let carol: Dav;
let dave: Dav;
let alicePassword: string;
let outside: ReturnType<typeof canary>;
let before: { root: string[]; bob: string[] };
const SECRET = 'bob-secret-content';
const PERM = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

/** The URL-path escapes of files-path.test.ts, below /dav. */
const ESCAPES = [...PATH_ESCAPES, '/tobob/secret.txt', '/out/canary.txt'];

/** Destinations that try to leave the scope (or WebDAV, or the server). */
const DEST_ESCAPES = [
  '/dav/../canary-copy.txt',
  '/dav/../../canary-copy.txt',
  '/dav/%2e%2e/bob/stolen.txt',
  '/dav/x/../../bob/stolen.txt',
  '/dav/..%5cbob%5cstolen.txt',
  '/dav/%2e%2e%2fbob%2fstolen.txt',
  '/dav/stolen%00.txt',
  '/dav/tobob/stolen.txt',
  '/dav/out/stolen.txt',
  `/dav/${'b'.repeat(300)}`,
  '/api/resources/stolen.txt',
  '/dav-other/stolen.txt',
  'http://evil.example/dav/stolen.txt',
  'HOST/../bob/stolen.txt',
  'stolen.txt',
];

const REFUSED = [400, 403, 404, 409];

function expectUntouched() {
  expect(outside.unchanged()).toBe(true);
  expect(fs.readFileSync(path.join(fm.root, 'bob', 'secret.txt'), 'utf8')).toBe(SECRET);
  expect(listTree(path.join(fm.root, 'bob'))).toEqual(before.bob);
  // A delete that went through moved the entry into the trash (.fm-trash), which is fm's own.
  expect(
    fs
      .readdirSync(fm.root)
      .filter((n) => n !== '.fm-trash')
      .sort(),
  ).toEqual(before.root);
}

function resetAlice() {
  const dir = path.join(fm.root, 'alice');
  fs.rmSync(dir, { recursive: true, force: true });
  makeTree(dir, {
    'ok.txt': 'alice ok',
    '.hidden': 'hidden',
    a: { 'file.txt': 'rule-denied-content' },
    ab: { 'file.txt': 'sibling' },
    x: {},
    tobob: { link: '../bob' },
    out: { link: '../..' },
  });
}

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  outside = canary(fm.home);
  makeTree(fm.root, { bob: { 'secret.txt': SECRET }, shared: { 'doc.txt': 'shared' } });
  resetAlice();
  before = { root: fs.readdirSync(fm.root).sort(), bob: listTree(path.join(fm.root, 'bob')) };
  const admin = await adminClient(fm);
  const rule = { regex: false, allow: false, path: '/a', regexp: { raw: '' } };
  alicePassword = (await createUser(admin, fm, 'alice', { scope: '/alice', rules: [rule], hideDotfiles: true, perm: PERM })).password;
  alice = davClient(fm.url, 'alice', alicePassword);
  for (const name of ['carol', 'dave']) {
    const { password } = await createUser(admin, fm, name, { scope: '/shared', perm: PERM });
    if (name === 'carol') carol = davClient(fm.url, name, password);
    else dave = davClient(fm.url, name, password);
  }
});
afterAll(async () => {
  await fm.stop();
});

describe('PATH: escapes in WebDAV paths', () => {
  for (const method of ['PROPFIND', 'GET', 'HEAD', 'PUT', 'DELETE', 'MKCOL', 'COPY', 'MOVE', 'PROPPATCH', 'LOCK']) {
    it(`${method}: every escape answers 400/403/404/409 and touches nothing`, async () => {
      for (const attempt of ESCAPES) {
        const headers: Record<string, string> = { Depth: '0', Destination: '/dav/copied.txt' };
        const body =
          method === 'PUT'
            ? 'pwned'
            : method === 'PROPPATCH'
              ? '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><z xmlns="urn:z">1</z></D:prop></D:set></D:propertyupdate>'
              : method === 'LOCK'
                ? LOCK_BODY()
                : undefined;
        const res = await alice(method, attempt, { headers, body });
        expect.soft(REFUSED, `${method} ${attempt.slice(0, 60)} -> ${res.status} ${res.text.slice(0, 80)}`).toContain(res.status);
        expect(res.text).not.toContain(SECRET);
        expect(res.text).not.toContain('canary');
      }
      expectUntouched();
      expect(fs.existsSync(path.join(fm.root, 'alice', 'copied.txt'))).toBe(false);
    });
  }
});

describe('PATH: escapes in the Destination header', () => {
  for (const method of ['COPY', 'MOVE']) {
    it(`${method}: every destination escape is refused (403, or 502 for another host) and never followed`, async () => {
      const host = new URL(fm.url).host;
      for (const raw of DEST_ESCAPES) {
        const dest = raw.startsWith('HOST') ? `${fm.url}/dav${raw.slice(4)}` : raw;
        const res = await alice(method, '/ok.txt', { headers: { Destination: dest, Overwrite: 'T' } });
        const expected = raw.startsWith('http://evil') ? [502] : [400, 403, 404, 409];
        expect.soft(expected, `${method} -> ${dest}: ${res.status} ${res.text}`).toContain(res.status);
      }
      const res = await alice(method, '/ok.txt', { headers: { Destination: `http://${host}/dav/ab/../../bob/x.txt` } });
      expect(res.status).toBe(403);
      expectUntouched();
      expect(fs.readFileSync(path.join(fm.root, 'alice', 'ok.txt'), 'utf8')).toBe('alice ok');
    });
  }
});

describe('SYML and rules over WebDAV', () => {
  it('PROPFIND lists neither rule-denied, hidden nor escaping entries; they cannot be reached by name', async () => {
    const res = await alice('PROPFIND', '/', { headers: { Depth: '1' } });
    expect(res.status).toBe(207);
    expect(hrefs(res.text).sort()).toEqual(['/dav/', '/dav/ab/', '/dav/ok.txt', '/dav/x/']);
    for (const p of ['/a', '/a/', '/a/file.txt', '//a/file.txt', '/x/../a/file.txt', '/%61/file.txt', '/tobob/', '/out/']) {
      for (const method of ['PROPFIND', 'GET']) {
        const r = await alice(method, p, { headers: { Depth: '0' } });
        expect.soft([403, 404], `${method} ${p} -> ${r.status}`).toContain(r.status);
        expect(r.text).not.toContain('rule-denied-content');
      }
    }
    const hidden = await alice('GET', '/.hidden');
    expect([403, 404]).toContain(hidden.status);
    expect(hidden.text).not.toContain('hidden\n');
  });

  it('a write through a link leaving the scope is refused; deleting the link removes the link only', async () => {
    expect((await alice('PUT', '/tobob/planted.txt', { body: 'x' })).status).toBe(403);
    expect((await alice('DELETE', '/tobob')).status).toBe(204);
    expect(fs.existsSync(path.join(fm.root, 'alice', 'tobob'))).toBe(false);
    expectUntouched();
    resetAlice();
  });
});

describe('XML bodies: no entity is ever expanded', () => {
  const xxe = (file: string) =>
    `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file://${file}">]><D:propfind xmlns:D="DAV:"><D:prop><z xmlns="urn:z">&x;</z></D:prop></D:propfind>`;
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">' +
    '<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]><D:propfind xmlns:D="DAV:"><D:prop><z xmlns="urn:z">&e;</z></D:prop></D:propfind>';

  for (const method of ['PROPFIND', 'PROPPATCH', 'LOCK']) {
    it(`${method}: XXE, billion laughs, malformed, non-UTF-8 and oversized bodies are refused before any change`, async () => {
      const cases: Array<[string, string | Buffer, number]> = [
        ['XXE', xxe(outside.path), 400],
        ['billion laughs', laughs, 400],
        ['internal DTD', '<!DOCTYPE x><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>', 400],
        ['malformed', '<D:propfind xmlns:D="DAV:"><D:allprop></D:propfind>', 400],
        ['undeclared prefix', '<X:propfind><X:allprop/></X:propfind>', 400],
        ['unknown entity', '<D:propfind xmlns:D="DAV:">&nbsp;</D:propfind>', 400],
        ['not UTF-8', Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e]), 400],
        ['over 1 MiB', `<D:propfind xmlns:D="DAV:">${' '.repeat(1 << 20)}</D:propfind>`, 413],
      ];
      for (const [label, body, status] of cases) {
        const res = await alice(method, '/ok.txt', { headers: { Depth: '0', 'Content-Type': 'application/xml' }, body });
        expect.soft(res.status, `${method} ${label}: ${res.text.slice(0, 100)}`).toBe(status);
        expect(res.text).not.toContain('canary');
        expect(res.text).not.toContain('lollol');
      }
      expect((await alice('PROPFIND', '/ok.txt', { headers: { Depth: '0' } })).text).not.toContain('urn:z');
      expect((await alice('UNLOCK', '/ok.txt', { headers: { 'Lock-Token': '<opaquelocktoken:none>' } })).status).toBe(409);
    });
  }
});

describe('LOCK: a lock belongs to the user who took it', () => {
  it("another user's token neither lets a write through nor unlocks nor refreshes", async () => {
    const lock = await carol('LOCK', '/doc.txt', { headers: { Timeout: 'Second-600' }, body: LOCK_BODY() });
    expect(lock.status).toBe(200);
    const token = /<([^>]+)>/.exec(String(lock.headers['lock-token']))![1];
    expect(token).toMatch(/^opaquelocktoken:[0-9a-f-]{36}$/);
    const ifHeader = { If: `(<${token}>)` };

    expect((await dave('PUT', '/doc.txt', { body: 'dave' })).status).toBe(423);
    expect((await dave('PUT', '/doc.txt', { headers: ifHeader, body: 'dave' })).status).toBe(423);
    expect((await dave('DELETE', '/doc.txt', { headers: ifHeader })).status).toBe(423);
    expect((await dave('MOVE', '/doc.txt', { headers: { ...ifHeader, Destination: '/dav/moved.txt' } })).status).toBe(423);
    expect((await dave('COPY', '/doc.txt', { headers: { Destination: '/dav/copy.txt' } })).status).toBe(201);
    const tagged = { If: `<${fm.url}/dav/doc.txt> (<${token}>)` };
    expect((await dave('COPY', '/copy.txt', { headers: { ...tagged, Destination: '/dav/doc.txt' } })).status).toBe(423);
    expect((await dave('UNLOCK', '/doc.txt', { headers: { 'Lock-Token': `<${token}>` } })).status).toBe(403);
    expect((await dave('LOCK', '/doc.txt', { headers: ifHeader })).status).toBe(403);
    expect((await dave('LOCK', '/doc.txt', { body: LOCK_BODY('shared') })).status).toBe(423);
    expect(fs.readFileSync(path.join(fm.root, 'shared', 'doc.txt'), 'utf8')).toBe('shared');

    expect((await carol('PUT', '/doc.txt', { body: 'carol' })).status).toBe(423);
    expect((await carol('PUT', '/doc.txt', { headers: ifHeader, body: 'carol' })).status).toBe(204);
    expect((await carol('UNLOCK', '/doc.txt', { headers: { 'Lock-Token': `<${token}>` } })).status).toBe(204);
    expect((await dave('PUT', '/doc.txt', { body: 'dave' })).status).toBe(204);
    expect(fs.readFileSync(path.join(fm.root, 'shared', 'doc.txt'), 'utf8')).toBe('dave');
  });
});

describe("AUTH: Basic with the user's credentials, throttled like the login", () => {
  it('no or wrong credentials get 401 with a Basic challenge; a session token is not a WebDAV credential', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` },
      { Authorization: 'Basic !!!' },
    ]) {
      const res = await rawRequest(fm.url, { method: 'PROPFIND', path: '/dav/', headers: { Depth: '0', ...headers } });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="fm"/);
    }
    const login = await rawRequest(fm.url, { method: 'POST', path: '/api/login', body: JSON.stringify({ username: 'alice', password: alicePassword }) });
    const res = await rawRequest(fm.url, {
      method: 'PROPFIND',
      path: '/dav/',
      headers: { Depth: '0', 'X-Auth': login.text, Authorization: `Bearer ${login.text}` },
    });
    expect(res.status).toBe(401);
  });

  it('guesses are throttled per user and address: after ten, even the right (remembered) password gets 429', async () => {
    const wrong = { Authorization: `Basic ${Buffer.from('alice:guess').toString('base64')}` };
    // Ten at once all pass the check (the throttle counts those in flight) and all fail: locked.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => rawRequest(fm.url, { method: 'PROPFIND', path: '/dav/', headers: { Depth: '0', ...wrong }, localAddress: '127.0.0.9' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    const right = { Authorization: `Basic ${Buffer.from(`alice:${alicePassword}`).toString('base64')}` };
    const res = await rawRequest(fm.url, { method: 'PROPFIND', path: '/dav/', headers: { Depth: '0', ...right }, localAddress: '127.0.0.9' });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    // Another address is not locked out.
    expect((await alice('PROPFIND', '/', { headers: { Depth: '0' } })).status).toBe(207);
  });

  it('a cross-site write is refused at the edge (WebDAV clients send no Origin)', async () => {
    const res = await alice('PUT', '/csrf.txt', { headers: { Origin: 'http://evil.example' }, body: 'x' });
    expect(res.status).toBe(403);
    expect(fs.existsSync(path.join(fm.root, 'alice', 'csrf.txt'))).toBe(false);
  });
});
