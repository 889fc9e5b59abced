/**
 * Personal access tokens: the wire shapes shared by the server, the CLI and the UI (no zod, no
 * Node built-ins). The request schema is in src/schemas/tokens.ts.
 */

/** Every token starts with this, so a leaked one is recognisable (and secret scanners can match it). */
export const ACCESS_TOKEN_PREFIX = 'fmpat_';

/** The longest life a token may be given (366 days); a token without expiry is asked for with 0. */
export const MAX_TOKEN_LIFETIME = 366 * 86400;

/** A token as listed: never its secret. Times are epoch seconds; 0 = never (expiry) or not yet (last use). */
export interface AccessTokenDto {
  id: string;
  name: string;
  userID: number;
  created: number;
  expires: number;
  lastUsed: number;
  /** Reads only: every request that would change something is refused. */
  readOnly: boolean;
  /** A folder inside the user's scope the token is limited to; '' for the whole scope. */
  path: string;
  /** Filled for admins, who see every user's tokens from the CLI. */
  username?: string;
}

/** The answer to a creation: the only time the secret is shown. */
export interface CreatedAccessToken extends AccessTokenDto {
  token: string;
}

/** A validated POST /api/tokens body. */
export interface AccessTokenRequest {
  name: string;
  /** Lifetime in seconds; 0 = no expiry. */
  expires: number;
  readOnly: boolean;
  path: string;
}
