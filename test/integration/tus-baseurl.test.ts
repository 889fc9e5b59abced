import fs from 'node:fs';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTusFm, type TusFm } from './tus-helpers.ts';

describe('tus under a base URL', () => {
  let t: TusFm;
  beforeAll(async () => {
    t = await startTusFm({ args: ['--baseurl', '/fm'] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers with a Location that carries the base URL, and tus-js-client follows it', async () => {
    expect(t.fm.url).toMatch(/\/fm$/);
    const origin = new URL(t.fm.url).origin;
    const admin = t.admin;
    const created = await raw(origin, 'POST', '/fm/api/tus/based.txt', { 'X-Auth': admin.token, 'Upload-Length': '3' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/fm/api/tus/based.txt');
    await raw(origin, 'DELETE', '/fm/api/tus/based.txt', { 'X-Auth': admin.token });

    const data = Buffer.from('through the base URL');
    const error = await new Promise<Error | undefined>((resolve) => {
      const upload = new tus.Upload(data, {
        endpoint: `${t.fm.url}/api/tus/based.txt?override=false`,
        chunkSize: 8,
        headers: { 'X-Auth': admin.token },
        onSuccess: () => resolve(undefined),
        onError: (err) => resolve(err),
      });
      upload.start();
    });
    expect(error).toBeUndefined();
    expect(fs.readFileSync(path.join(t.fm.root, 'based.txt'), 'utf8')).toBe('through the base URL');
  });
});
