/** Server-side schemas of the settings contract (src/api/settings.ts): zod, for the server, storage and CLI. */
import { z } from 'zod';
import { TOTP_POLICIES } from '../api/totp.ts';
import {
  AUTH_METHODS,
  THEMES,
  oidcIssuerProblem,
  type AuthConfig,
  type OidcConfig,
  type Branding,
  type Settings,
  type TusSettings,
  type UserDefaults,
} from '../api/settings.ts';
import { VIEW_MODES } from '../api/user.ts';
import { AUDIT_DEFAULT_RETENTION } from '../api/audit.ts';
import { sameType } from './same-type.ts';
import { PermissionsSchema, QuotaSchema, RuleSchema, SortingSchema } from './user.ts';
import { PARSE_ONCE } from './parse-once.ts';

export const UserDefaultsSchema = z.object({
  scope: z.string().default('.'),
  locale: z.string().default('en'),
  viewMode: z.enum(VIEW_MODES).catch('list').default('list'),
  singleClick: z.boolean().default(false),
  redirectAfterCopyMove: z.boolean().default(true),
  sorting: SortingSchema.default({ by: 'name', asc: true }),
  perm: PermissionsSchema.default({
    admin: false,
    execute: false,
    create: true,
    rename: true,
    modify: true,
    delete: true,
    share: true,
    download: true,
  }),
  commands: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  hideDotfiles: z.boolean().default(false),
  dateFormat: z.boolean().default(false),
  aceEditorTheme: z.string().default(''),
  quota: QuotaSchema,
  quotaFiles: QuotaSchema,
});
sameType<z.output<typeof UserDefaultsSchema>, UserDefaults>(true);

export const BrandingSchema = z.object({
  name: z.string().default(''),
  disableExternal: z.boolean().default(false),
  disableUsedPercentage: z.boolean().default(false),
  files: z.string().default(''),
  theme: z.enum(THEMES).catch('').default(''),
  color: z.string().default(''),
});
sameType<z.output<typeof BrandingSchema>, Branding>(true);

export const TusSettingsSchema = z.object({
  chunkSize: z
    .number()
    .int()
    .nonnegative()
    .default(10 * 1024 * 1024),
  retryCount: z.number().int().nonnegative().default(5),
});
sameType<z.output<typeof TusSettingsSchema>, TusSettings>(true);

export const OidcConfigSchema = z.object({
  issuer: z.string().superRefine((v, ctx) => {
    const problem = oidcIssuerProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  clientId: z.string().min(1, 'the client id is required'),
  clientSecret: z.string().default(''),
  scopes: z.string().default('openid profile email'),
  usernameClaim: z.string().min(1).default('preferred_username'),
  groupsClaim: z.string().default(''),
  adminGroup: z.string().default(''),
  name: z.string().default(''),
});
sameType<z.output<typeof OidcConfigSchema>, OidcConfig>(true);

export const AuthConfigSchema = z.object({
  header: z.string().default(''),
  command: z.string().default(''),
  recaptcha: z
    .object({ host: z.string().default('https://www.google.com'), key: z.string().default(''), secret: z.string().default('') })
    .nullable()
    .default(null),
  oidc: OidcConfigSchema.nullable().default(null),
});
sameType<z.output<typeof AuthConfigSchema>, AuthConfig>(true);

/** The settings record as stored and as returned by GET /api/settings. */
export const SettingsSchema = z.object({
  signup: z.boolean().default(false),
  hideLoginButton: z.boolean().default(false),
  createUserDir: z.boolean().default(false),
  userHomeBasePath: z.string().default('/users'),
  minimumPasswordLength: z.number().int().min(1).max(1024).default(12),
  defaults: UserDefaultsSchema.default(UserDefaultsSchema.parse({}, PARSE_ONCE)),
  authMethod: z.enum(AUTH_METHODS).default('json'),
  auth: AuthConfigSchema.default(AuthConfigSchema.parse({}, PARSE_ONCE)),
  totpRequired: z.enum(TOTP_POLICIES).default('none'),
  logoutPage: z.string().default('/login'),
  rules: z
    .array(RuleSchema)
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  branding: BrandingSchema.default(BrandingSchema.parse({}, PARSE_ONCE)),
  tus: TusSettingsSchema.default(TusSettingsSchema.parse({}, PARSE_ONCE)),
  shell: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  commands: z
    .record(
      z.string(),
      z
        .array(z.string())
        .nullable()
        .transform((v) => v ?? []),
    )
    .nullable()
    .default({})
    .transform((v) => v ?? {}),
  fileMode: z.number().int().min(0).max(0o777).default(0o640),
  dirMode: z.number().int().min(0).max(0o777).default(0o750),
  enableExec: z.boolean().default(false),
  execNetwork: z.boolean().default(false),
  execMaxMemory: z
    .number()
    .int()
    .nonnegative()
    .default(1024 ** 3),
  execMaxFileSize: z
    .number()
    .int()
    .nonnegative()
    .default(1024 ** 3),
  execMaxProcesses: z.number().int().nonnegative().default(128),
  enableThumbnails: z.boolean().default(true),
  resizePreview: z.boolean().default(true),
  maxUploadSize: z.number().int().nonnegative().default(0),
  uploadExpiry: z
    .number()
    .int()
    .min(1)
    .default(24 * 60 * 60),
  trashRetention: z
    .number()
    .int()
    .nonnegative()
    .default(30 * 24 * 60 * 60),
  auditRetention: z.number().int().min(1).default(AUDIT_DEFAULT_RETENTION),
});
sameType<z.output<typeof SettingsSchema>, Settings>(true);

/** PUT /api/settings: the keys to change (checked in full by services/settings.ts once merged). */
export const SettingsChangesSchema = z.record(z.string(), z.unknown(), { error: 'expected a settings object' });
