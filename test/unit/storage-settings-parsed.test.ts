/** The settings are parsed once per memo generation (storage/repos/settings.ts): a change is still seen at once, and the object every caller shares is frozen. */
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
  it('are one frozen object shared by every reader: a caller cannot change them for the next', async () => {
    const repo = new SettingsRepo(server);
    const first = await repo.get();
    expect(await repo.get()).toBe(first);
    expect(() => {
      // @ts-expect-error the shared settings are read-only to the compiler as well
      first.signup = !first.signup;
    }).toThrow(TypeError);
    expect(() => {
      // @ts-expect-error nested objects too
      first.defaults.scope = '/changed';
    }).toThrow(TypeError);
    // @ts-expect-error and arrays
    expect(() => first.rules.push({ regex: false, allow: false, path: '/x', regexp: { raw: '' } })).toThrow(TypeError);
    const second = await repo.get();
    expect(second.defaults.scope).not.toBe('/changed');
    expect(second.rules).toEqual([]);
  });

  it("come as a copy of the caller's own from editable(), to change and save", async () => {
    const repo = new SettingsRepo(server);
    const mine = await repo.editable();
    mine.signup = !mine.signup;
    mine.defaults.scope = '/changed';
    mine.rules.push({ regex: false, allow: false, path: '/x', regexp: { raw: '' } });
    expect((await repo.get()).defaults.scope).not.toBe('/changed');
    await repo.save(mine);
    expect(await repo.get()).toMatchObject({ signup: mine.signup, defaults: { scope: '/changed' }, rules: [{ path: '/x' }] });
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
