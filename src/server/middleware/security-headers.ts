/** Headers on every response; routes that serve user files or the page tighten or extend the CSP. */
import type { FmMiddleware } from '../types.ts';

export const API_CSP = "default-src 'none'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

const HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'same-origin'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Content-Security-Policy', API_CSP],
  ['Cache-Control', 'no-cache, no-store, must-revalidate'],
];

export const securityHeaders: FmMiddleware = async (ctx, next) => {
  // Straight to Node: constant, valid values, before anything is sent (ctx.set builds arrays per call).
  for (const [name, value] of HEADERS) ctx.res.setHeader(name, value);
  await next();
};
