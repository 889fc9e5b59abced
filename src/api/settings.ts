/** The global settings contract shared by the server, the CLI and the web UI. */
import { z } from 'zod';
import { PermissionsSchema, RuleSchema, SortingSchema, VIEW_MODES } from './user.ts';

export const HOOK_EVENTS = ['save', 'copy', 'rename', 'upload', 'delete'] as const;
export const HOOK_TRIGGERS = HOOK_EVENTS.flatMap((e) => [`before_${e}`, `after_${e}`]);

export const AUTH_METHODS = ['json', 'noauth', 'proxy', 'hook'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

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
  commands: z.array(z.string()).nullable().default([]).transform((v) => v ?? []),
  hideDotfiles: z.boolean().default(false),
  dateFormat: z.boolean().default(false),
  aceEditorTheme: z.string().default(''),
});
export type UserDefaults = z.infer<typeof UserDefaultsSchema>;

export const BrandingSchema = z.object({
  name: z.string().default(''),
  disableExternal: z.boolean().default(false),
  disableUsedPercentage: z.boolean().default(false),
  files: z.string().default(''),
  theme: z.enum(['', 'light', 'dark']).catch('').default(''),
  color: z.string().default(''),
});

export const TusSettingsSchema = z.object({
  chunkSize: z.number().int().nonnegative().default(10 * 1024 * 1024),
  retryCount: z.number().int().nonnegative().default(5),
});

export const AuthConfigSchema = z.object({
  /** proxy: the trusted header that names the user. */
  header: z.string().default(''),
  /** hook: the external program (argv, split on spaces, no shell). */
  command: z.string().default(''),
  recaptcha: z
    .object({ host: z.string().default('https://www.google.com'), key: z.string().default(''), secret: z.string().default('') })
    .nullable()
    .default(null),
});

/** The settings record as stored and as returned by GET /api/settings. */
export const SettingsSchema = z.object({
  signup: z.boolean().default(false),
  hideLoginButton: z.boolean().default(false),
  createUserDir: z.boolean().default(false),
  userHomeBasePath: z.string().default('/users'),
  minimumPasswordLength: z.number().int().min(1).max(1024).default(12),
  defaults: UserDefaultsSchema.default(UserDefaultsSchema.parse({})),
  authMethod: z.enum(AUTH_METHODS).default('json'),
  auth: AuthConfigSchema.default(AuthConfigSchema.parse({})),
  logoutPage: z.string().default('/login'),
  rules: z.array(RuleSchema).nullable().default([]).transform((v) => v ?? []),
  branding: BrandingSchema.default(BrandingSchema.parse({})),
  tus: TusSettingsSchema.default(TusSettingsSchema.parse({})),
  shell: z.array(z.string()).nullable().default([]).transform((v) => v ?? []),
  commands: z
    .record(z.string(), z.array(z.string()).nullable().transform((v) => v ?? []))
    .nullable()
    .default({})
    .transform((v) => v ?? {}),
  fileMode: z.number().int().min(0).max(0o777).default(0o640),
  dirMode: z.number().int().min(0).max(0o777).default(0o750),
  enableExec: z.boolean().default(false),
  /** Commands and hooks may use the network (their sandbox then shares the host's). */
  execNetwork: z.boolean().default(false),
  /** Address space of each command or hook process in bytes (RLIMIT_AS), also the size of its /tmp; 0 = no limit. */
  execMaxMemory: z.number().int().nonnegative().default(1024 ** 3),
  /** Largest file a command or hook may write in bytes (RLIMIT_FSIZE); 0 = no limit. */
  execMaxFileSize: z.number().int().nonnegative().default(1024 ** 3),
  /** Processes and threads of one command or hook, everything it starts included; 0 = no limit. */
  execMaxProcesses: z.number().int().nonnegative().default(128),
  enableThumbnails: z.boolean().default(true),
  resizePreview: z.boolean().default(true),
  /** Largest accepted upload in bytes; 0 means no limit. */
  maxUploadSize: z.number().int().nonnegative().default(0),
  /** Seconds after its last write at which an unfinished upload is discarded (default 24 h). */
  uploadExpiry: z.number().int().min(1).default(24 * 60 * 60),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Fills every hook trigger key so clients always see the full map. */
export function normalizeCommands(commands: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of HOOK_TRIGGERS) out[key] = commands[key] ?? [];
  for (const [key, value] of Object.entries(commands)) if (!(key in out)) out[key] = value;
  return out;
}

/** Startup settings injected into index.html (spec §3). */
export interface StartupSettings {
  Name: string;
  DisableExternal: boolean;
  DisableUsedPercentage: boolean;
  BaseURL: string;
  StaticURL: string;
  ReCaptcha: boolean;
  ReCaptchaKey: string;
  ReCaptchaHost: string;
  Signup: boolean;
  Version: string;
  NoAuth: boolean;
  AuthMethod: string;
  LoginPage: boolean;
  LogoutPage: string;
  Theme: string;
  Color: string;
  EnableThumbs: boolean;
  ResizePreview: boolean;
  EnableExec: boolean;
  HideLoginButton: boolean;
  CSS: boolean;
  TusSettings: { chunkSize: number; retryCount: number };
}
