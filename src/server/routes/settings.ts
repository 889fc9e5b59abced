/** GET/PUT /api/settings (admins only). The auth method and its options are changed by the CLI only. */
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import { SettingsSchema, type Settings } from '../../api/settings.ts';
import { cleanScope } from '../../services/scope.ts';
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

/** Validates a new settings object; throws 400 naming the first bad field. */
export function parseSettings(raw: unknown): Settings {
  const r = SettingsSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BadRequestError(`invalid settings: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  for (const rule of [...r.data.rules]) {
    if (rule.regex) {
      try {
        new RegExp(rule.regexp.raw);
      } catch {
        throw new BadRequestError(`invalid regular expression in rules: ${rule.regexp.raw}`);
      }
    } else if (!rule.path) throw new BadRequestError('a path rule needs a path');
  }
  return { ...r.data, userHomeBasePath: cleanScope(r.data.userHomeBasePath) };
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
    const next = parseSettings({ ...current, ...changes, authMethod: current.authMethod, auth: current.auth });
    await ctx.services.validateSettings?.(next, current, { force: queryFlag(ctx, 'force') });
    await ctx.services.repos.settings.save(next);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
