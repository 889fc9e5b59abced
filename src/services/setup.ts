/** First start: default settings, the signing key and an `admin` user with a random password. */
import crypto from 'node:crypto';
import type { Settings, SharedSettings } from '../api/settings.ts';
import { SettingsSchema } from '../schemas/settings.ts';
import type { Repos } from './context.ts';
import type { UserService } from './users.ts';
import { allPermissions } from './users.ts';
import { PARSE_ONCE } from '../schemas/parse-once.ts';

/** Writes default settings and the signing key if the database has none. */
export async function ensureSettings(repos: Repos, overrides: Partial<Settings> = {}): Promise<SharedSettings> {
  const existing = await repos.settings.load();
  if (existing) return existing;
  const settings = await repos.settings.save({ ...SettingsSchema.parse({}, PARSE_ONCE), ...overrides });
  await repos.settings.signingKey();
  return settings;
}

export interface CreatedAdmin {
  username: string;
  password: string;
}

/** Creates `admin` with a random password when no admin exists; returns it so it can be printed once. */
export async function ensureAdmin(repos: Repos, users: UserService): Promise<CreatedAdmin | undefined> {
  const admin = await planAdmin(repos);
  if (admin) await createAdmin(users, admin);
  return admin;
}

/** The name (`admin`, else `admin2`, …) and random password of the admin to create, when no admin exists; writes nothing. */
export async function planAdmin(repos: Repos): Promise<CreatedAdmin | undefined> {
  if ((await repos.users.adminCount()) > 0) return undefined;
  let username = 'admin';
  for (let i = 2; await repos.users.getByUsername(username); i++) username = `admin${i}`;
  return { username, password: crypto.randomBytes(14).toString('base64url') };
}

/** Stores the planned admin (its password bcrypt-hashed: tens of milliseconds). */
export async function createAdmin(users: UserService, admin: CreatedAdmin): Promise<void> {
  await users.create({
    data: { username: admin.username, password: admin.password, scope: '.', perm: allPermissions(), lockPassword: false },
    skipPolicy: true,
  });
}
