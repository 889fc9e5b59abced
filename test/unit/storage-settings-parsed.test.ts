/** The settings are parsed once per memo generation (storage/repos/settings.ts): a change is still seen at once, and callers never share an object. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import { SettingsRepo } from '../../src/storage/repos/settings.ts';

let tmp: string;
let server: Database;
let cli: Database;

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-settings-parsed-'));
  server = await openDatabase(path.join(tmp, 'fm.db'));
  cli = await openDatabase(path.join(tmp, 'fm.db'));
  await new SettingsRepo(server).save(SettingsSchema.parse({}));
});

afterEach(async () => {
  await Promise.all([server.close(), cli.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the settings read on every request', () => {
  it('come as a fresh copy each time: a caller changing its copy changes nothing for the next', async () => {
    const repo = new SettingsRepo(server);
    const first = await repo.get();
    first.signup = !first.signup;
    first.defaults.scope = '/changed';
    const second = await repo.get();
    expect(second.signup).toBe(!first.signup);
    expect(second.defaults.scope).not.toBe('/changed');
  });

  it('show a change written by this process or by another (after the refresh every request makes)', async () => {
    const repo = new SettingsRepo(server);
    await repo.get();
    await repo.save({ ...(await repo.get()), signup: true });
    expect((await repo.get()).signup).toBe(true);

    const other = new SettingsRepo(cli);
    await other.save({ ...(await other.get()), signup: false, createUserDir: true });
    await server.refresh();
    expect(await repo.get()).toMatchObject({ signup: false, createUserDir: true });
  });
});
