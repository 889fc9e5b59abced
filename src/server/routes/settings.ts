/** GET/PUT /api/settings (admins only). The auth method and its options are changed by the CLI only. */
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import type { Settings } from '../../api/settings.ts';
import { saveSettings } from '../../services/settings.ts';
import { authenticate, requireAdmin } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { queryFlag } from '../files-request.ts';
import type { FmRouter } from '../types.ts';

/** The settings as the API shows them (the signing key is stored elsewhere and never shown). */
export function presentSettings(s: Settings, effectiveMethod: string) {
  const { auth, ...rest } = s;
  return {
    ...rest,
    authMethod: effectiveMethod,
    auth: { header: auth.header, command: auth.command, recaptcha: auth.recaptcha ? { host: auth.recaptcha.host, key: auth.recaptcha.key } : null },
  };
}

export function settingsRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.get('/api/settings', authenticate, requireAdmin, async (ctx) => {
    const s = await ctx.services.repos.settings.get();
    ctx.body = presentSettings(s, ctx.services.auth.method(s));
  });

  router.put('/api/settings', authenticate, requireAdmin, jsonBody(), async (ctx) => {
    const body = ctx.request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('expected a settings object');
    const current = await ctx.services.repos.settings.get();
    const { authMethod: _m, auth: _a, ...changes } = body as Record<string, unknown>;
    await saveSettings(ctx.services, { ...current, ...changes, authMethod: current.authMethod, auth: current.auth }, { allowLaunchers: queryFlag(ctx, 'force') });
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
