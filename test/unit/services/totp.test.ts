import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepos } from '../../../src/services/context.ts';
import { loadOrCreateKey, open, seal } from '../../../src/storage/secret-box.ts';
import { checkCode, makeTotp, stepOf, TotpService } from '../../../src/services/totp.ts';
import { type Database, openDatabase } from '../../../src/storage/db.ts';
import type { UserRecord } from '../../../src/storage/repos/users.ts';

const RFC_SECRET = Secret.fromLatin1('12345678901234567890');

describe('RFC 6238 appendix B (SHA-1, 8 digits)', () => {
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  const totp = makeTotp(RFC_SECRET, { digits: 8 });
  it.each(vectors)('T=%i gives %s, and that code is accepted at T', (t, code) => {
    expect(totp.generate({ timestamp: t * 1000 })).toBe(code);
    expect(checkCode(totp, code, 0, t * 1000)).toEqual({ step: stepOf(t * 1000) });
  });
});

describe('checkCode', () => {
  const totp = makeTotp(RFC_SECRET);
  const now = 1_700_000_000_000;
  const code = totp.generate({ timestamp: now });

  it('accepts a code one step early or late, and no further', () => {
    expect(checkCode(totp, code, 0, now + 30_000)).toEqual({ step: stepOf(now) });
    expect(checkCode(totp, code, 0, now - 30_000)).toEqual({ step: stepOf(now) });
    expect(checkCode(totp, code, 0, now + 90_000)).toBe('wrong');
  });

  it('refuses a code of a step already used, or of an earlier one (replay)', () => {
    expect(checkCode(totp, code, stepOf(now), now)).toBe('replayed');
    expect(checkCode(totp, totp.generate({ timestamp: now - 30_000 }), stepOf(now), now)).toBe('replayed');
    expect(checkCode(totp, totp.generate({ timestamp: now + 30_000 }), stepOf(now), now)).toEqual({ step: stepOf(now) + 1 });
  });

  it('refuses anything but the right number of digits', () => {
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code} `]) expect(checkCode(totp, bad, 0, now)).toBe('wrong');
  });
});

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-totp-'));
  db = await openDatabase(path.join(dir, 'fm.db'));
});
afterEach(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('secret box', () => {
  it('makes an owner-only 32-byte key once, whatever the umask, and reads the same key back', () => {
    const file = path.join(dir, 'secrets.key');
    const old = process.umask(0o022);
    try {
      const key = loadOrCreateKey(file);
      expect(key.length).toBe(32);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(loadOrCreateKey(file).equals(key)).toBe(true);
      expect(fs.readdirSync(dir).filter((n) => n.includes('secrets'))).toEqual(['secrets.key']);
    } finally {
      process.umask(old);
    }
  });

  it('opens what it sealed only with the same key and context', () => {
    const key = loadOrCreateKey(path.join(dir, 'secrets.key'));
    const sealed = seal(key, 'JBSWY3DPEHPK3PXP', '7');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(open(key, sealed, '7')).toBe('JBSWY3DPEHPK3PXP');
    expect(() => open(key, sealed, '8')).toThrow(/cannot be opened/);
    expect(() => open(Buffer.alloc(32), sealed, '7')).toThrow(/cannot be opened/);
  });

  it('tightens a key file copied in with group or other permissions', () => {
    const file = path.join(dir, 'secrets.key');
    fs.writeFileSync(file, Buffer.alloc(32, 7), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(loadOrCreateKey(file).equals(Buffer.alloc(32, 7))).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a key file of the wrong size', () => {
    const file = path.join(dir, 'secrets.key');
    fs.writeFileSync(file, 'short');
    expect(() => loadOrCreateKey(file)).toThrow(/not an fm key/);
  });
});

describe('TotpService', () => {
  const alice = { id: 2, username: 'alice', perm: { admin: false } } as UserRecord;
  const service = () => new TotpService(createRepos(db), path.join(dir, 'secrets.key'));

  it('keeps the secret sealed in the database and is pending until a valid code confirms it', async () => {
    const totp = service();
    const { secret, uri } = await totp.start(alice, 'fm');
    expect(uri).toMatch(/^otpauth:\/\/totp\/fm:alice\?/);
    expect(uri).toContain(`secret=${secret}`);
    const stored = await createRepos(db).totp.get(alice.id);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(await totp.enabled(alice.id)).toBe(false);
    expect(await totp.verify(alice.id, codeNow(secret))).toBe('wrong');
    await expect(totp.confirm(alice, '000000')).rejects.toThrow(/wrong or expired/);
    const { recoveryCodes } = await totp.confirm(alice, codeNow(secret));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await totp.enabled(alice.id)).toBe(true);
    // The code that confirmed cannot sign in afterwards.
    expect(await totp.verify(alice.id, codeNow(secret))).toBe('replayed');
    expect(JSON.stringify(await createRepos(db).totp.get(alice.id))).not.toContain(recoveryCodes[0]);
  });

  it('accepts each recovery code once, in any case and with or without its dash', async () => {
    const totp = service();
    const { secret } = await totp.start(alice, 'fm');
    const { recoveryCodes } = await totp.confirm(alice, codeNow(secret));
    const [first, second] = recoveryCodes;
    expect(await totp.verify(alice.id, first)).toBe('ok');
    expect(await totp.verify(alice.id, first)).toBe('wrong');
    expect(await totp.verify(alice.id, second.toUpperCase().replace('-', ''))).toBe('ok');
    expect(await totp.recoveryLeft(alice.id)).toBe(8);
  });

  it('refuses to start again while on, and starts afresh once turned off', async () => {
    const totp = service();
    const { secret } = await totp.start(alice, 'fm');
    await totp.confirm(alice, codeNow(secret));
    await expect(totp.start(alice, 'fm')).rejects.toThrow(/already on/);
    expect(await totp.disable(alice.id)).toBe(true);
    expect(await totp.enabled(alice.id)).toBe(false);
    expect((await totp.start(alice, 'fm')).secret).not.toBe(secret);
  });

  it('tells the UI whether the policy leads a user to enrol', async () => {
    const totp = service();
    const admin = { ...alice, id: 1, perm: { admin: true } } as UserRecord;
    expect(await totp.state(alice, 'admins')).toEqual({ enabled: false, required: false });
    expect(await totp.state(admin, 'admins')).toEqual({ enabled: false, required: true });
    expect(await totp.state(alice, 'all')).toEqual({ enabled: false, required: true });
    expect(await totp.state(admin, 'none')).toEqual({ enabled: false, required: false });
  });
});

function codeNow(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate();
}
