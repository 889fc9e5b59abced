/** Password hashing and the one password policy used by the API, signup and the CLI. */
import { BadRequestError } from '../errors.ts';

export const BCRYPT_COST = 10;

/** bcryptjs is loaded by the first password hashed or checked, not at start-up. */
let bcryptModule: Promise<typeof import('bcryptjs')['default']> | undefined;
const loadBcrypt = () => (bcryptModule ??= import('bcryptjs').then((m) => m.default));

/** The most common passwords (lower-cased); long enough ones are still refused. */
const COMMON = new Set(
  `123456789012 1234567890123 12345678901234 123456789123 qwertyuiopas qwertyuiop12 qwertyuiop123 password1234 password12345
password123456 passwordpassword 111111111111 000000000000 123123123123 abcdefghijkl abc123abc123 iloveyou1234 administrator
adminadmin123 letmein12345 welcome12345 welcome123456 changeme1234 qwerty123456 1q2w3e4r5t6y 1qaz2wsx3edc zaq12wsxcde3
monkeymonkey princess1234 football1234 baseball1234 trustno11234 superman1234 dragon123456 sunshine1234 starwars1234
asdfghjkl123 asdfasdfasdf qazwsxedcrfv passw0rd1234 p@ssw0rd1234 filebrowser12 filebrowser123 changemenow1 secret123456`
    .split(/\s+/)
    .filter(Boolean),
);

/** Throws a 400 with the reason when a new password breaks the policy. */
export function checkPasswordPolicy(password: string, minimumLength: number): void {
  if (typeof password !== 'string' || password.length === 0) throw new BadRequestError('password is empty');
  if ([...password].length < minimumLength) {
    throw new BadRequestError(`password is too short: at least ${minimumLength} characters are required`);
  }
  if (Buffer.byteLength(password, 'utf8') > 72) throw new BadRequestError('password is longer than 72 bytes');
  if (COMMON.has(password.toLowerCase())) throw new BadRequestError('password is too common');
}

export async function hashPassword(password: string): Promise<string> {
  return (await loadBcrypt()).hash(password, BCRYPT_COST);
}

/**
 * A cost-10 hash of a random string nobody knows, compared against when a user does not
 * exist, so that unknown usernames take as long as known ones (and always fail).
 */
const DUMMY_HASH = '$2b$10$gQlWcXHKbR.B93aFqdEcZem/9xc54fp//7sKx6Jjue4zmJKjFtuo2';

/** Checks a password against a bcrypt hash; with no hash it still spends one bcrypt compare, then fails. */
export async function checkPassword(password: string, hash: string | undefined): Promise<boolean> {
  if (typeof password !== 'string') return false;
  if (Buffer.byteLength(password, 'utf8') > 72) password = password.slice(0, 72);
  const bcrypt = await loadBcrypt();
  if (!hash) {
    await bcrypt.compare(password, DUMMY_HASH);
    return false;
  }
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false;
  }
}

/** Whether a string looks like a bcrypt hash (for `fm users add --password-hash` and imports). */
export function isBcryptHash(s: string): boolean {
  return /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(s);
}
