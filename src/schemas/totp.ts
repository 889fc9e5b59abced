/** Request schemas of /api/users/{id}/totp. */
import { z } from 'zod';
import { objectBody } from './request.ts';

/** PUT: `{"code": "123456"}`, the current code of the pending secret. */
export const TotpConfirmBodySchema = objectBody(z.object({ code: z.string({ error: 'must be a string of 6 digits' }).trim().min(1, 'is required') }));

/** DELETE: `{"current_password"}`, as user updates take it. */
export const TotpDisableBodySchema = objectBody(z.object({ current_password: z.string().optional() }));
