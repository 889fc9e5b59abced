import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gate, type Access } from '../../src/services/files/gate.ts';
import { WalkSearch } from '../../src/services/search/walk.ts';
import { parseQuery } from '../../src/services/search/query.ts';
import { ndjsonStream } from '../../src/services/search/ndjson.ts';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import type { Rule } from '../../src/api/user.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';

let home: string;
let root: string;
let gate: Gate;

function write(rel: string, content = 'x') {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

async function access(opts: { rules?: Partial<Rule>[]; hideDotfiles?: boolean; scope?: string } = {}): Promise<Access> {
  const user: UserRecord = {
    ...UserDataSchema.parse({
      username: 'u',
      scope: opts.scope ?? '/',
      hideDotfiles: opts.hideDotfiles ?? false,
      rules: opts.rules ?? [],
      perm: { admin: false, download: true },
    }),
    sessionEpoch: 0,
    updatedAt: 0,
  };
  return gate.access(user, SettingsSchema.parse({}));
}

async function run(a: Access, dir: string, query: string): Promise<string[]> {
  const target = await gate.resolve(a, dir, 'read');
  const out: string[] = [];
  for await (const batch of new WalkSearch(gate).search(a, target, parseQuery(query), new AbortController().signal)) {
    for (const r of batch) out.push(`${r.virtual}${r.dir ? '/' : ''}`);
  }
  return out.sort();
}

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-search-walk-'));
  root = path.join(home, 'root');
  write('docs/report.pdf');
  write('docs/Report-final.PDF');
  write('docs/notes.md');
  write('docs/private/secret-report.txt');
  write('docs/privateer/report-ok.txt');
  write('photos/beach.jpg');
  write('photos/.hidden-report.txt');
  write('.git/config-report');
  write('users/bob/report-bob.txt');
  write('users/alice/report-alice.txt');
  write('.fm-partial-abc123report');
  fs.mkdirSync(path.join(root, 'reports'));
  fs.writeFileSync(path.join(home, 'outside-report.txt'), 'secret');
  fs.symlinkSync(path.join(home, 'outside-report.txt'), path.join(root, 'escaping-report-link'));
  fs.symlinkSync(path.join(root, 'docs'), path.join(root, 'docs-report-link'));
  fs.symlinkSync(path.join(root, 'missing'), path.join(root, 'dangling-report-link'));
  gate = new Gate(fs.realpathSync(root), [path.join(home, 'data')]);
});

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('walk search', () => {
  it('finds names containing any term, folders marked, the start folder excluded', async () => {
    expect(await run(await access(), '/', 'report')).toEqual([
      '/.git/config-report',
      '/dangling-report-link',
      '/docs-report-link/',
      '/docs/Report-final.PDF',
      '/docs/private/secret-report.txt',
      '/docs/privateer/report-ok.txt',
      '/docs/report.pdf',
      '/photos/.hidden-report.txt',
      '/reports/',
      '/users/alice/report-alice.txt',
      '/users/bob/report-bob.txt',
    ]);
  });

  it('never shows fm partial uploads, and leaves out links that escape the scope without following any link', async () => {
    const all = await run(await access(), '/', '');
    expect(all.some((p) => p.includes('.fm-partial-'))).toBe(false);
    expect(all.some((p) => p.includes('escaping'))).toBe(false);
    expect(all).toContain('/docs-report-link/');
    expect(all.some((p) => p.startsWith('/docs-report-link/') && p !== '/docs-report-link/')).toBe(false);
  });

  it('is confined to the folder searched', async () => {
    expect(await run(await access(), '/docs/private', 'report')).toEqual(['/docs/private/secret-report.txt']);
  });

  it('prunes folders denied by a path rule, on segment boundaries (/docs/private vs /docs/privateer)', async () => {
    const a = await access({ rules: [{ path: '/docs/private', allow: false }] });
    const found = await run(a, '/', 'report');
    expect(found).not.toContain('/docs/private/secret-report.txt');
    expect(found).toContain('/docs/privateer/report-ok.txt');
  });

  it('drops names denied by a regex rule, and a later allow rule wins', async () => {
    const a = await access({ rules: [{ regex: true, regexp: { raw: '\\.pdf$' }, allow: false }] });
    expect((await run(a, '/docs', 'report')).filter((p) => p.endsWith('.pdf'))).toEqual([]);
    const b = await access({
      rules: [
        { regex: true, regexp: { raw: '[Rr]eport' }, allow: false },
        { path: '/users/bob', allow: true },
      ],
    });
    expect(await run(b, '/', 'report')).toEqual(['/users/bob/report-bob.txt']);
  });

  it('hides dotfiles and everything under dot-folders when the user hides dotfiles', async () => {
    const found = await run(await access({ hideDotfiles: true }), '/', 'report');
    expect(found.some((p) => p.includes('/.'))).toBe(false);
    expect(found).toContain('/docs/report.pdf');
  });

  it('sees a scope as its root and nothing outside it', async () => {
    const found = await run(await access({ scope: '/users/bob' }), '/', 'report');
    expect(found).toEqual(['/report-bob.txt']);
  });

  it('applies type, case and filters', async () => {
    const a = await access();
    expect(await run(a, '/', 'type:pdf')).toEqual(['/docs/Report-final.PDF', '/docs/report.pdf']);
    expect(await run(a, '/docs', 'case:sensitive Report')).toEqual(['/docs/Report-final.PDF']);
    expect(await run(a, '/photos', 'size>0 type:image')).toEqual(['/photos/beach.jpg']);
    expect(await run(a, '/photos', 'size>1k')).toEqual([]);
    expect(await run(a, '/photos', 'modified<1d beach')).toEqual(['/photos/beach.jpg']);
  });

  it('stops walking as soon as the signal aborts', async () => {
    for (let i = 0; i < 40; i++) write(`big/d${i}/f.txt`);
    const a = await access();
    const target = await gate.resolve(a, '/big', 'read');
    const controller = new AbortController();
    const it = new WalkSearch(gate).search(a, target, parseQuery(''), controller.signal)[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    controller.abort();
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });
});

describe('NDJSON streaming', () => {
  /** Reads until `until(text)` holds or the stream ends, leaving the stream open. */
  function collect(stream: NodeJS.ReadableStream, until: (text: string) => boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += String(chunk);
        if (until(text)) finish();
      };
      const finish = () => {
        stream.off('data', onData).off('end', finish).off('error', reject);
        stream.pause();
        resolve(text);
      };
      stream.on('data', onData).once('end', finish).once('error', reject);
      stream.resume();
    });
  }

  it('writes one JSON document per line and ends with the source', async () => {
    async function* source() {
      yield { dir: false, path: 'a' };
      yield { dir: true, path: 'b/c' };
    }
    const text = await collect(ndjsonStream(source(), new AbortController()), () => false);
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { dir: false, path: 'a' },
      { dir: true, path: 'b/c' },
    ]);
    expect(text).toBe('{"dir":false,"path":"a"}\n{"dir":true,"path":"b/c"}\n');
  });

  it('sends results before the source ends, then an empty heartbeat line while nothing is found', async () => {
    let finish!: () => void;
    const blocked = new Promise<void>((r) => (finish = r));
    async function* source() {
      yield { n: 1 };
      await blocked;
      yield { n: 2 };
    }
    const stream = ndjsonStream(source(), new AbortController(), { heartbeatMs: 40, flushMs: 1 });
    const first = await collect(stream, (t) => t.includes('\n\n'));
    expect(first).toBe('{"n":1}\n\n');
    finish();
    expect(await collect(stream, () => false)).toMatch(/^\n*\{"n":2\}\n$/);
  });

  it('aborts the source when the stream is destroyed (the client went away)', async () => {
    const controller = new AbortController();
    let closed = false;
    async function* source() {
      try {
        for (let i = 0; ; i++) {
          if (controller.signal.aborted) return;
          yield { i };
          await new Promise((r) => setTimeout(r, 1));
        }
      } finally {
        closed = true;
      }
    }
    const stream = ndjsonStream(source(), controller, { flushMs: 1 });
    await collect(stream, (t) => t.includes('"i":2'));
    stream.destroy();
    await new Promise((r) => setTimeout(r, 20));
    expect(controller.signal.aborted).toBe(true);
    expect(closed).toBe(true);
  });
});
