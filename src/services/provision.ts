/**
 * Users that another system vouches for (a trusted proxy, the auth hook, an OpenID provider):
 * found by their exact name, or created from the new-user defaults on first sight.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError } from '../errors.ts';
import type { SharedSettings } from '../api/settings.ts';
import { cleanUsername, type UserRecord } from '../storage/repos/users.ts';
import type { Repos } from './context.ts';
import type { UserService } from './users.ts';

/**
 * A name as it must match a user: NFC, and valid as a username as it stands (a name that only
 * becomes valid by trimming is not exact). Throws 400 for impossible names; undefined when the
 * name differs from its cleaned form.
 */
export function exactName(raw: string): string | undefined {
  const name = raw.normalize('NFC');
  return cleanUsername(name) === name ? name : undefined;
}

/**
 * The user with exactly this (NFC) name; 'different' when a user's name differs only in case,
 * which must not sign in as that user nor be created beside it.
 */
export async function exactUser(repos: Repos, name: string): Promise<UserRecord | 'different' | undefined> {
  const user = await repos.users.getByUsername(name);
  if (!user) return undefined;
  return user.username === name ? user : 'different';
}

/**
 * Creates a user from the defaults, home folder rules included; never with admin or execute
 * unless `admin` (an OpenID provider's group mapping) says so. When two first requests race, the
 * loser reads the winner's record.
 */
export async function provisionOnce(
  repos: Repos,
  users: UserService,
  settings: SharedSettings,
  name: string,
  overrides: Partial<UserRecord>,
  admin = false,
): Promise<UserRecord> {
  const perm = { ...settings.defaults.perm, ...(overrides.perm ?? {}), admin, execute: false };
  try {
    return await users.create(
      {
        data: { ...overrides, username: name, password: randomBytes(24).toString('base64url'), perm, commands: [], lockPassword: true },
        skipPolicy: true,
      },
      settings,
    );
  } catch (err) {
    const created = err instanceof ConflictError ? await exactUser(repos, name) : undefined;
    if (created && created !== 'different') return created;
    throw err;
  }
}
