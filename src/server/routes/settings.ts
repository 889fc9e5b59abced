/**
 * GET/PUT /api/settings (admins only). The auth method and its options are changed by the CLI
 * only, but for single sign-on, which asks for the admin's current password (under json auth).
 */
import Router from '@koa/router';
import { authenticate, requestSettings, requireAdmin } from '../middleware/auth.ts';
import { requestedOidc } from '../../services/settings.ts';
import { jsonBody } from '../middleware/body.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { SettingsChangesSchema } from '../../schemas/settings.ts';
import { ForceQuerySchema } from '../../schemas/user.ts';
import { presentSettings } from '../present.ts';
import type { FmRouter } from '../types.ts';
import { auditAs, changedKeys } from '../audit.ts';

const putInput = { body: SettingsChangesSchema, query: ForceQuerySchema };

export function settingsRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.get('/api/settings', authenticate, requireAdmin, async (ctx) => {
    const s = await ctx.services.settings.get();
    ctx.body = presentSettings(s, ctx.services.auth.method(s));
  });

  router.put('/api/settings', authenticate, requireAdmin, jsonBody(), validate(putInput), async (ctx) => {
    const { body, query } = inputOf(ctx, putInput);
    // Field names only: values may be secrets (the OIDC client secret, reCAPTCHA's). What was
    // asked for, until the change says what changed.
    const asked = Object.keys(body).filter((k) => k !== 'current_password');
    auditAs(ctx, { action: 'settings-change', detail: `asked to change ${asked.join(', ')}` });
    // Whoever sets the provider decides who signs in as anyone: not a stolen session alone.
    const settings = await requestSettings(ctx);
    if (requestedOidc(body, settings.auth.oidc) !== undefined && ctx.services.auth.method(settings) === 'json') {
      const given = typeof body.current_password === 'string' ? body.current_password : undefined;
      await ctx.services.users.checkCurrentPassword(ctx.state.user!, given);
    }
    const after = await ctx.services.settings.change(body, { allowLaunchers: query.force });
    // What really changed: the page sends whole cards.
    auditAs(ctx, { detail: `changed ${changedKeys(settings, after).join(', ') || 'nothing'}` });
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
