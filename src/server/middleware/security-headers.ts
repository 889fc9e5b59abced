/** Headers on every response; routes that serve user files or the page tighten or extend the CSP. */
import type { FmMiddleware } from '../types.ts';

export const API_CSP = "default-src 'none'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

export const securityHeaders: FmMiddleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Frame-Options', 'SAMEORIGIN');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Content-Security-Policy', API_CSP);
  ctx.set('Cache-Control', 'no-cache, no-store, must-revalidate');
  await next();
};
