/**
 * Encryption of secrets fm must read back (two-factor secrets): AES-256-GCM under a key kept in
 * its own file in fm's data folder, owner-only, so that a copy of the database alone (a backup,
 * an export) does not hold them in a usable form.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FmError } from '../errors.ts';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed strings start with their format, so another one can be added later. */
const FORMAT = 'v1';

export class SecretKeyError extends FmError {
  constructor(message: string) {
    super(500, 'secret_key', message);
  }
}

/**
 * The key in `file`, made on first use: 32 random bytes written to a temporary file (0600) and
 * linked into place, so that two processes starting together agree on one key and no reader
 * ever sees a half-written file.
 */
export function loadOrCreateKey(file: string): Buffer {
  try {
    return readKey(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(6).toString('hex')}`);
  fs.writeFileSync(tmp, crypto.randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return readKey(file);
}

function readKey(file: string): Buffer {
  const key = fs.readFileSync(file);
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`${file} is not an fm key (${key.length} bytes, expected ${KEY_BYTES})`);
  const mode = fs.statSync(file).mode & 0o777;
  // Umask-proof, also for a key copied in by hand; a key fm does not own is left as it is.
  try {
    if (mode & 0o077) fs.chmodSync(file, mode & 0o700);
  } catch {
    // not ours to change
  }
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to `context` (e.g. the user id) as associated data. */
export function seal(key: Buffer, plaintext: string, context: string): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [FORMAT, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The plaintext of a sealed string; throws SecretKeyError when the key or the context does not match. */
export function open(key: Buffer, sealed: string, context: string): string {
  const [format, iv, tag, body] = sealed.split('.');
  if (format !== FORMAT || !iv || !tag || body === undefined) throw new SecretKeyError('a sealed secret is damaged');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyError("a sealed secret cannot be opened with the key in fm's data folder (was the key file replaced?)");
  }
}
