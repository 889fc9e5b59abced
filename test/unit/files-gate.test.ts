/**
 * The gate and the TOCTOU-safe I/O below it, exercised directly: symlinks swapped in after a
 * path was resolved (SYML "swapped" fixtures), recursive checks, protected paths.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { ForbiddenError, NotFoundError } from '../../src/errors.ts';
import { Gate, type Access } from '../../src/services/files/gate.ts';
import { openForRead } from '../../src/services/files/io.ts';
import { placeFile } from '../../src/services/files/disk/place.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';
import { makeTree } from '../helpers/files.ts';

let tmp: string;
let root: string;
let gate: Gate;
let access: Access;

function user(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    ...UserDataSchema.parse({ username: 'u', perm: { create: true, rename: true, modify: true, delete: true, download: true } }),
    sessionEpoch: 0,
    updatedAt: 0,
    ...overrides,
  };
}

beforeEach(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-gate-')));
  root = path.join(tmp, 'root');
  makeTree(tmp, { root: { d: { 'f.txt': 'inside' }, other: {} }, outside: { 'f.txt': 'OUTSIDE' } });
  gate = new Gate(root, [path.join(tmp, 'fm.db')]);
  access = await gate.access(user(), SettingsSchema.parse({}));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('SYML: a folder swapped for a link after the gate resolved a path', () => {
  it('openForRead refuses the file it would reach outside', async () => {
    const target = await gate.resolve(access, '/d/f.txt', 'download');
    fs.renameSync(path.join(root, 'd'), path.join(root, 'd-old'));
    fs.symlinkSync(path.join(tmp, 'outside'), path.join(root, 'd'));
    await expect(openForRead(target)).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('a write refuses to create its file outside', async () => {
    const target = await gate.resolve(access, '/d/new.txt', 'create', { mustExist: false });
    fs.renameSync(path.join(root, 'd'), path.join(root, 'd-old'));
    fs.symlinkSync(path.join(tmp, 'outside'), path.join(root, 'd'));
    const write = gate.withParent(target, { create: 0o750 }, (dir, name) =>
      placeFile(dir, name, { kind: 'stream', stream: Readable.from([Buffer.from('pwned')]) }, { override: false, mode: 0o640 }),
    );
    await expect(write).rejects.toBeInstanceOf(ForbiddenError);
    expect(fs.readdirSync(path.join(tmp, 'outside'))).toEqual(['f.txt']);
  });

  it('a final component swapped for a link is not followed', async () => {
    const target = await gate.resolve(access, '/d/f.txt', 'download');
    fs.rmSync(path.join(root, 'd', 'f.txt'));
    fs.symlinkSync(path.join(tmp, 'outside', 'f.txt'), path.join(root, 'd', 'f.txt'));
    await expect(openForRead(target)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});

describe('the gate', () => {
  it('checks permissions before touching the file system', async () => {
    const noCreate = await gate.access(user({ perm: { ...user().perm, create: false } }), SettingsSchema.parse({}));
    await expect(gate.resolve(noCreate, '/does/not/matter', 'create', { mustExist: false })).rejects.toBeInstanceOf(ForbiddenError);
    const admin = await gate.access(user({ perm: { ...user().perm, admin: true, create: false } }), SettingsSchema.parse({}));
    await expect(gate.resolve(admin, '/x', 'create', { mustExist: false })).resolves.toMatchObject({ exists: false });
  });

  it('checkTree refuses a tree with a rule-denied descendant, at the source or at the destination', async () => {
    makeTree(root, { t: { ok: 'x', secret: { 'k.txt': 'k' } } });
    const rules = [{ regex: false, allow: false, path: '/t/secret', regexp: { raw: '' } }];
    const restricted = await gate.access(user({ rules }), SettingsSchema.parse({}));
    const t = await gate.resolve(restricted, '/t', 'delete');
    await expect(gate.checkTree(t)).rejects.toBeInstanceOf(ForbiddenError);
    const dRules = [{ regex: false, allow: false, path: '/dest/d/f.txt', regexp: { raw: '' } }];
    const destRestricted = await gate.access(user({ rules: dRules }), SettingsSchema.parse({}));
    const d = await gate.resolve(destRestricted, '/d', 'read');
    await expect(gate.checkTree(d, { mappedTo: '/dest/d' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(gate.checkTree(d, { mappedTo: '/elsewhere' })).resolves.toBeUndefined();
  });

  it('never hides the whole root because the data folder holds it, but hides the database', async () => {
    fs.writeFileSync(path.join(root, 'fm.db'), 'SQLite format 3');
    const g = new Gate(root, [tmp, root, path.join(root, 'fm.db')]);
    const a = await g.access(user(), SettingsSchema.parse({}));
    await expect(g.resolve(a, '/d/f.txt', 'download')).resolves.toMatchObject({ exists: true });
    await expect(g.resolve(a, '/fm.db', 'download')).rejects.toBeInstanceOf(NotFoundError);
    const top = await g.resolve(a, '/', 'read');
    await expect(g.checkTree(top)).rejects.toBeInstanceOf(ForbiddenError);
    const names: string[] = [];
    for await (const e of g.visibleTree(top)) names.push(e.virtual);
    expect(names).not.toContain('/fm.db');
    expect(names).toContain('/d/f.txt');
  });

  it('a link inside the scope to a rule-denied folder does not get around the rule', async () => {
    fs.symlinkSync('d', path.join(root, 'alias'));
    const restricted = await gate.access(user({ rules: [{ regex: false, allow: false, path: '/d', regexp: { raw: '' } }] }), SettingsSchema.parse({}));
    await expect(gate.resolve(restricted, '/alias/f.txt', 'download')).rejects.toBeInstanceOf(ForbiddenError);
    await expect(gate.resolve(restricted, '/alias', 'read')).rejects.toBeInstanceOf(ForbiddenError);
    expect(gate.resolveLinkEntry(restricted, path.join(root, 'alias'))).toBe('denied');
  });
});
