/**
 * Two-factor login of a user: POST /api/users/{id}/totp starts an enrolment ({secret, uri}),
 * PUT confirms it with a code ({recoveryCodes}, shown this once), DELETE turns it off (with the
 * caller's current password). Users manage their own; an admin may only turn another's off.
 * A session is needed: an access token cannot change how its user signs in.
 */
import Router from '@koa/router';
import { ForbiddenError, NotFoundError } from '../../errors.ts';
import { TotpConfirmBodySchema, TotpDisableBodySchema } from '../../schemas/totp.ts';
import { UserIdParamsSchema } from '../../schemas/user.ts';
import { authenticate, requestSettings, requireSession } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const startInput = { params: UserIdParamsSchema };
const confirmInput = { params: UserIdParamsSchema, body: TotpConfirmBodySchema };
const disableInput = { params: UserIdParamsSchema, body: TotpDisableBodySchema };

/** Enrolment is the user's own business: not even an admin holds another user's second factor. */
function requireSelf(ctx: FmContext, id: number): void {
  if (ctx.state.user!.id !== id) throw new ForbiddenError('only the user themself can enrol in two-factor login');
}

export function totpRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.post('/api/users/:id/totp', authenticate, requireSession, validate(startInput), async (ctx) => {
    requireSelf(ctx, inputOf(ctx, startInput).params.id);
    const settings = await requestSettings(ctx);
    ctx.body = await ctx.services.totp.start(ctx.state.user!, settings.branding.name.trim() || 'fm');
  });

  router.put('/api/users/:id/totp', authenticate, requireSession, jsonBody('16kb'), validate(confirmInput), async (ctx) => {
    const { params, body } = inputOf(ctx, confirmInput);
    requireSelf(ctx, params.id);
    auditAs(ctx, { action: 'user-change', detail: `user ${ctx.state.user!.username}: two-factor login turned on` });
    ctx.body = await ctx.services.totp.confirm(ctx.state.user!, body.code);
    // The session's claim says whether two-factor login is on: the client renews it.
    ctx.set('X-Renew-Token', 'true');
  });

  router.delete('/api/users/:id/totp', authenticate, requireSession, jsonBody('16kb'), validate(disableInput), async (ctx) => {
    const { params, body } = inputOf(ctx, disableInput);
    const actor = ctx.state.user!;
    const { auth, users, totp } = ctx.services;
    // Yourself, or anyone for an admin; 404 for an unknown user.
    const target = await users.read(actor, params.id);
    auditAs(ctx, { action: 'user-change', detail: `user ${target.username}: two-factor login turned off` });
    if (auth.method(await requestSettings(ctx)) === 'json') await users.checkCurrentPassword(actor, body.current_password);
    if (!(await totp.disable(params.id))) throw new NotFoundError('two-factor login is not on for this user');
    if (actor.id === params.id) ctx.set('X-Renew-Token', 'true');
    ctx.status = 204;
  });

  return router;
}
