/**
 * WebDAV conformance: litmus (the Debian package) runs its basic, copymove, props, locks and
 * http suites against fm's /dav/ as a user with a scope; any failed test fails this one, and so
 * does any warning not explained in docs/webdav.md (the list below mirrors it).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';

/** Warnings litmus may give, each explained in docs/webdav.md ("litmus"). None today. */
const EXPLAINED_WARNINGS: RegExp[] = [];

let fm: FmServer;
let password: string;

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  const admin = await adminClient(fm);
  fs.mkdirSync(path.join(fm.root, 'litmus-home'));
  ({ password } = await createUser(admin, fm, 'litmus', {
    scope: '/litmus-home',
    perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: false, download: true },
  }));
});
afterAll(async () => {
  await fm.stop();
});

/** Runs litmus (asynchronously: the server answers from this very process). */
function litmus(url: string, user: string, pass: string): Promise<{ code: number | null; out: string }> {
  const cwd = tempDir('fm-litmus-'); // litmus writes debug.log and child.log into its working folder
  return new Promise((resolve, reject) => {
    const child = spawn('litmus', [url, user, pass], { cwd, env: { ...process.env, TESTS: 'basic copymove props locks http' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      fs.rmSync(cwd, { recursive: true, force: true });
      resolve({ code, out });
    });
  });
}

describe('WebDAV: litmus', () => {
  it('passes every test of basic, copymove, props, locks and http, with only explained warnings', async () => {
    const { code, out } = await litmus(`${fm.url}/dav/`, 'litmus', password);
    const summaries = [...out.matchAll(/<- summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/g)];
    const failures = out.split('\n').filter((l) => /\bFAIL\b|SKIPPED|ABORTED/.test(l));
    expect(failures, out).toEqual([]);
    expect(
      summaries.map((m) => [m[1], Number(m[4])]),
      out,
    ).toEqual([
      ['basic', 0],
      ['copymove', 0],
      ['props', 0],
      ['locks', 0],
      ['http', 0],
    ]);
    for (const m of summaries) expect(Number(m[3]), m[0]).toBe(Number(m[2]));
    const warnings = out.split('\n').filter((l) => l.includes('WARNING'));
    const unexplained = warnings.filter((w) => !EXPLAINED_WARNINGS.some((re) => re.test(w)));
    expect(unexplained, 'warnings not explained in docs/webdav.md').toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});
