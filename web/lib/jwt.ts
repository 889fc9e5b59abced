/** Reads the claims of a JWT (the UI trusts the server; it only decodes). */
import type { TokenUser } from '../../src/api/user.ts';

export interface Claims {
  user: TokenUser;
  exp: number;
  iat: number;
}

function base64UrlDecode(s: string): string {
  const b64 = s
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(s.length / 4) * 4, '=');
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Decodes the payload; throws 'token malformed' unless the token has exactly three dot-separated parts. */
export function decodeToken(token: string): Claims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error('token malformed');
  const claims = JSON.parse(base64UrlDecode(parts[1])) as Claims;
  if (!claims || typeof claims !== 'object' || !claims.user) throw new Error('token malformed');
  return claims;
}

/** True when the token's expiry has passed. */
export function isExpired(claims: Claims, now = Date.now()): boolean {
  return typeof claims.exp === 'number' && claims.exp * 1000 <= now;
}
