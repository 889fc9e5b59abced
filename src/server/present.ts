/**
 * Presenters: the only way entities leave fm, over HTTP and on the CLI's output. Services return
 * records; these make the wire objects. Password hashes, share tokens and bookkeeping fields
 * (session epochs, update stamps) never leave.
 */
import type { SharedSettings } from '../api/settings.ts';
import { pickLimits, type ShareDto } from '../api/shares.ts';
import type { UserData, UserDto } from '../api/user.ts';
import type { ShareRecord } from '../storage/repos/shares.ts';
import type { AccessTokenDto } from '../api/tokens.ts';
import type { AccessTokenRecord } from '../storage/repos/access-tokens.ts';
import { userData, type UserRecord } from '../storage/repos/users.ts';
import type { SearchResultDto } from '../api/files.ts';
import { makeQuote } from '../services/files/listing-render.ts';

/** A user as the API shows it; non-admin viewers do not see scopes. */
export function presentUser(u: UserRecord, viewer: UserRecord): UserDto {
  return { ...userData(u), password: '', scope: viewer.perm.admin ? u.scope : '' };
}

/** A user as the CLI prints it (to the admin at the console): every field but the password. */
export function presentUserForConsole(u: UserRecord): Omit<UserData, 'password'> {
  const { password: _p, ...rest } = userData(u);
  return rest;
}

/** A link: `hasPassword` instead of the hash, never the token; the owner's name when given (admins' lists). */
export function presentShare(s: ShareRecord, owner?: string): ShareDto {
  const dto: ShareDto = { hash: s.hash, path: s.path, userID: s.userID, expire: s.expire, hasPassword: Boolean(s.password_hash) };
  if (owner !== undefined) dto.username = owner;
  if (s.drop) {
    const { files, bytes, last } = s.drop;
    dto.uploadOnly = true;
    dto.limits = pickLimits(s.drop);
    dto.received = { files, bytes, last };
  }
  return dto;
}

/** An access token without its secret's hash or the epoch it is bound to; the owner's name when given (the CLI). */
export function presentAccessToken(t: AccessTokenRecord, owner?: string): AccessTokenDto {
  const { id, name, userID, created, expires, lastUsed, readOnly, path } = t;
  const dto: AccessTokenDto = { id, name, userID, created, expires, lastUsed, readOnly, path };
  if (owner !== undefined) dto.username = owner;
  return dto;
}

/** The settings as the API shows them: the method in effect, and never the reCAPTCHA or OpenID client secret. */
export function presentSettings(s: SharedSettings, effectiveMethod: string) {
  const { auth, ...rest } = s;
  const oidc = auth.oidc ? (({ clientSecret, ...o }) => ({ ...o, hasClientSecret: Boolean(clientSecret) }))(auth.oidc) : null;
  return {
    ...rest,
    authMethod: effectiveMethod,
    auth: {
      header: auth.header,
      command: auth.command,
      recaptcha: auth.recaptcha ? { host: auth.recaptcha.host, key: auth.recaptcha.key } : null,
      oidc,
    },
  };
}

const quote = makeQuote();

/**
 * A search hit's NDJSON line from its fields (`type` for files only): byte for byte what
 * JSON.stringify of its SearchResultDto gives, without the DTO or JSON.stringify per hit (thousands a query).
 */
export function searchResultJson(dir: boolean, path: string, size: number, modified: string, type?: SearchResultDto['type']): string {
  const head = `{"dir":${dir},"path":${quote(path)},"size":${size},"modified":"${modified}"`;
  return type === undefined ? `${head}}` : `${head},"type":"${type}"}`;
}
