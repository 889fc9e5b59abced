/**
 * PROPFIND Depth 1 of a folder large enough for the listing workers to write the responses
 * (disk/dav-batch.ts): each member's response is the one fm gives the same entry on its own
 * (Depth 0), for every kind of entry — files, folders, links in and out of the scope, dangling
 * links, a FIFO, names that are not UTF-8 or need XML escaping, dead properties — and the
 * entries a listing hides are absent.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARALLEL_MIN } from '../../src/services/files/disk/listing-worker.ts';
import { davClient, hrefs, type Dav } from '../helpers/dav.ts';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let dav: Dav;
const FILLERS = PARALLEL_MIN + 100;
const DEAD_PROP = '<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:color>red &amp; blue</Z:color></D:prop></D:set></D:propertyupdate>';

const big = (rel: string) => path.join(fm.root, 'big', rel);
const bigBytes = (rel: Buffer) => Buffer.concat([Buffer.from(`${big('')}/`), rel]);

/** The `<D:response>` elements of a multistatus by href. */
function responses(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<D:response>.*?<\/D:response>/gs)) out.set(hrefs(m[0])[0], m[0]);
  return out;
}

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  // A user for whom dotfiles are hidden and one file is denied by a rule.
  const rules = [{ regex: false, allow: false, path: '/big/denied.txt', regexp: { raw: '' } }];
  const bob = await createUser(await adminClient(fm), fm, 'bob', { scope: '/', hideDotfiles: true, rules, perm: { modify: true } });
  dav = davClient(fm.url, 'bob', bob.password);
  fs.mkdirSync(big('sub'), { recursive: true });
  for (let i = 0; i < FILLERS; i++) fs.writeFileSync(big(`file ${i}.txt`), String(i));
  fs.writeFileSync(big('a&b<c>"q".txt'), 'escaped');
  fs.writeFileSync(big('ünï 😀.pdf'), 'unicode');
  fs.writeFileSync(big('json'), 'mime by whole name');
  fs.writeFileSync(bigBytes(Buffer.from([0x62, 0xff, 0x2e, 0x62, 0x69, 0x6e])), 'not UTF-8');
  fs.writeFileSync(big('.hidden-file'), 'hidden');
  fs.writeFileSync(big('denied.txt'), 'denied by a rule');
  fs.symlinkSync('file 1.txt', big('link-to-file'));
  fs.symlinkSync('sub', big('link-to-folder'));
  fs.symlinkSync(fm.home, big('link-out-of-scope'));
  fs.symlinkSync('nowhere', big('dangling'));
  execFileSync('mkfifo', [big('fifo')]);
  const patched = await dav('PROPPATCH', '/big/file%202.txt', { body: DEAD_PROP });
  expect(patched.status, patched.text).toBe(207);
});
afterAll(async () => {
  await fm.stop();
});

describe('WebDAV: PROPFIND Depth 1 of a large folder', () => {
  const special = [
    'sub/',
    'a%26b%3Cc%3E%22q%22.txt',
    '%C3%BCn%C3%AF%20%F0%9F%98%80.pdf',
    'json',
    'b%FF.bin',
    'link-to-file',
    'link-to-folder/',
    'fifo',
    'file%202.txt',
    'file%2017.txt',
  ];

  it('answers allprop for each member as for the entry alone (without the lock properties a member leaves out)', async () => {
    const res = await dav('PROPFIND', '/big/', { headers: { Depth: '1' } });
    expect(res.status).toBe(207);
    const members = responses(res.text);
    // the folder itself, the fillers, sub, the escaped, unicode, "json" and non-UTF-8 names, two links, the FIFO
    expect(members.size).toBe(1 + FILLERS + 8);
    for (const absent of ['.hidden-file', 'denied.txt', 'link-out-of-scope', 'dangling']) expect(members.has(`/dav/big/${absent}`)).toBe(false);
    for (const rel of special) {
      const alone = await dav('PROPFIND', `/big/${rel}`, { headers: { Depth: '0' } });
      expect(alone.status, rel).toBe(207);
      const expected = [...responses(alone.text).values()][0].replace(/<D:supportedlock>.*?<\/D:supportedlock>/, '').replace('<D:lockdiscovery/>', '');
      expect(members.get(`/dav/big/${rel}`), rel).toBe(expected);
    }
    expect(members.get('/dav/big/file%202.txt')).toContain('<color xmlns="urn:z">red &amp; blue</color>');
  });

  it('answers a prop request for each member as for the entry alone, unknown properties in a 404 propstat', async () => {
    const body =
      '<D:propfind xmlns:D="DAV:" xmlns:Z="urn:z"><D:prop><D:getcontentlength/><D:resourcetype/><Z:color/><D:getetag/><D:quota-used-bytes/><D:displayname/><D:getcontenttype/></D:prop></D:propfind>';
    const res = await dav('PROPFIND', '/big/', { headers: { Depth: '1' }, body });
    expect(res.status).toBe(207);
    const members = responses(res.text);
    expect(members.size).toBe(1 + FILLERS + 8);
    for (const rel of special) {
      const alone = await dav('PROPFIND', `/big/${rel}`, { headers: { Depth: '0' }, body });
      expect(members.get(`/dav/big/${rel}`), rel).toBe([...responses(alone.text).values()][0]);
    }
    expect(members.get('/dav/big/file%2017.txt')).toContain('<D:status>HTTP/1.1 404 Not Found</D:status>');
  });
});
