/** The `upload` hooks around tus uploads: once per completed upload, never for refused ones. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/server.ts';
import { quote } from '../../src/services/exec/plan.ts';
import { Tus, stagedFiles, startTusFm, type TusFm } from './tus-helpers.ts';

const LOG_HOOK = quote(path.join(PROJECT_ROOT, 'test', 'fixtures', 'uploads', 'log-hook.sh'));
const FAIL_HOOK = quote(path.join(PROJECT_ROOT, 'test', 'fixtures', 'hooks', 'fail.sh'));

describe('upload hooks on tus uploads', () => {
  let t: TusFm;
  let tus: Tus;
  let log: string;
  const hookLines = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
      : [];
  const setHooks = async (commands: Record<string, string[]>) => {
    const res = await t.admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: true, commands } });
    expect(res.status, await res.text()).toBe(200);
  };

  beforeAll(async () => {
    t = await startTusFm();
    tus = new Tus(t.admin, t.fm.url);
    log = path.join(t.fm.root, '.upload-hooks.log');
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    fs.rmSync(log, { force: true });
    await setHooks({ before_upload: [LOG_HOOK], after_upload: [LOG_HOOK] });
  });

  it('run once per completed upload, around the move: before sees no file yet, after sees it', async () => {
    const file = path.join(t.fm.root, 'hooked/report.txt');
    expect((await tus.create('/hooked/report.txt', 9)).status).toBe(201);
    expect((await tus.patch('/hooked/report.txt', 0, 'abc')).status).toBe(204);
    expect((await tus.patch('/hooked/report.txt', 3, 'def')).status).toBe(204);
    expect(hookLines()).toEqual([]);
    expect((await tus.patch('/hooked/report.txt', 6, 'ghi')).status).toBe(204);
    expect(hookLines()).toEqual([`before_upload ${file} absent`, `after_upload ${file} present abcdefghi`]);
  });

  it('run once for a zero-length upload, at creation', async () => {
    expect((await tus.create('/hooked-empty.txt', 0)).status).toBe(201);
    expect(hookLines()).toHaveLength(2);
  });

  it('see the old contents in before_upload when overriding', async () => {
    const file = path.join(t.fm.root, 'hooked-old.txt');
    fs.writeFileSync(file, 'old');
    expect((await tus.upload('/hooked-old.txt', Buffer.from('new'), 3, true)).status).toBe(204);
    expect(hookLines()).toEqual([`before_upload ${file} present old`, `after_upload ${file} present new`]);
  });

  it('ffx7-75gc-jg7c: a negative, non-numeric or refused length never fires a hook', async () => {
    for (const len of ['-1', '-100', 'abc', '']) expect((await tus.create('/never.bin', len)).status).toBe(400);
    await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 10 } });
    try {
      expect((await tus.create('/never.bin', 11)).status).toBe(413);
    } finally {
      await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 0 } });
    }
    expect(hookLines()).toEqual([]);
    expect(fs.existsSync(path.join(t.fm.root, 'never.bin'))).toBe(false);
  });

  it('never fire for chunks refused or past the declared length, or for a terminated upload', async () => {
    expect((await tus.create('/cut.bin', 4)).status).toBe(201);
    expect((await tus.patch('/cut.bin', 0, 'abcdefgh')).status).toBe(413);
    expect((await tus.patch('/cut.bin', 0, 'ab', { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await tus.patch('/cut.bin', 1, 'ab')).status).toBe(409);
    expect((await tus.remove('/cut.bin')).status).toBe(204);
    expect(hookLines()).toEqual([]);
  });

  it('a failing before_upload refuses the last chunk with 403, places nothing and discards the upload', async () => {
    await setHooks({ before_upload: [FAIL_HOOK], after_upload: [LOG_HOOK] });
    expect((await tus.create('/refused.txt', 4)).status).toBe(201);
    const res = await tus.patch('/refused.txt', 0, 'data');
    expect(res.status).toBe(403);
    expect(res.body).toMatch(/uploads are closed today/);
    expect(fs.existsSync(path.join(t.fm.root, 'refused.txt'))).toBe(false);
    expect((await tus.head('/refused.txt')).status).toBe(404);
    expect(stagedFiles(t.staging)).toEqual([]);
    expect(hookLines()).toEqual([]);
  });
});
