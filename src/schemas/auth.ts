/** Request schemas of /api/login and /api/signup. */
import { z } from 'zod';

const optionalString = z
  .string({ error: 'must be a string' })
  .nullish()
  .transform((v) => v ?? undefined);

/**
 * `{username, password, recaptcha, otp}`: each a string when given (otp: a two-factor or recovery code). A body that is not an object
 * carries no credentials (the login then fails as any wrong login does).
 */
export const LoginBodySchema = z.preprocess(
  (b) => (b && typeof b === 'object' && !Array.isArray(b) ? b : {}),
  z.object({ username: optionalString, password: optionalString, recaptcha: optionalString, otp: optionalString }).transform((b) => ({
    username: b.username ?? '',
    password: b.password ?? '',
    recaptcha: b.recaptcha,
    otp: b.otp,
  })),
);
