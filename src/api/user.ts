/** The user contract shared by the server, the CLI and the web UI. */
import { z } from 'zod';

export const PERMISSION_NAMES = ['admin', 'execute', 'create', 'rename', 'modify', 'delete', 'share', 'download'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];
export type Permissions = Record<PermissionName, boolean>;

export const VIEW_MODES = ['list', 'mosaic', 'mosaic gallery'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

export const SORT_FIELDS = ['name', 'size', 'modified'] as const;

export const PermissionsSchema = z.object({
  admin: z.boolean().default(false),
  execute: z.boolean().default(false),
  create: z.boolean().default(false),
  rename: z.boolean().default(false),
  modify: z.boolean().default(false),
  delete: z.boolean().default(false),
  share: z.boolean().default(false),
  download: z.boolean().default(false),
});

export const SortingSchema = z.object({
  by: z.string().default('name'),
  asc: z.boolean().default(true),
});
export type Sorting = z.infer<typeof SortingSchema>;

export const RuleSchema = z.object({
  regex: z.boolean().default(false),
  allow: z.boolean().default(false),
  path: z.string().default(''),
  regexp: z.object({ raw: z.string().default('') }).default({ raw: '' }),
});
export type Rule = z.infer<typeof RuleSchema>;

/** The fields a user record has on the wire (password is a write-only field). */
export const UserDataSchema = z.object({
  id: z.number().int().nonnegative().default(0),
  username: z.string().default(''),
  password: z.string().default(''),
  scope: z.string().default(''),
  locale: z.string().default(''),
  lockPassword: z.boolean().default(false),
  viewMode: z.enum(VIEW_MODES).catch('list').default('list'),
  singleClick: z.boolean().default(false),
  redirectAfterCopyMove: z.boolean().default(true),
  perm: PermissionsSchema.default(PermissionsSchema.parse({})),
  commands: z.array(z.string()).nullable().default([]).transform((v) => v ?? []),
  sorting: SortingSchema.default({ by: 'name', asc: true }),
  rules: z.array(RuleSchema).nullable().default([]).transform((v) => v ?? []),
  hideDotfiles: z.boolean().default(false),
  dateFormat: z.boolean().default(false),
  aceEditorTheme: z.string().default(''),
});
export type UserData = z.infer<typeof UserDataSchema>;

/** What the server returns for a user: everything but the password hash. */
export type UserDto = Omit<UserData, 'password'> & { password: '' };

/** Body of POST /api/users and PUT /api/users/{id}. */
export const UserWriteSchema = z.object({
  what: z.literal('user'),
  which: z.array(z.string()).nullable().default([]).transform((v) => v ?? []),
  current_password: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
});
export type UserWrite = z.infer<typeof UserWriteSchema>;

/** The subset of the user carried in the JWT `user` claim (filebrowser's shape). */
export interface TokenUser {
  id: number;
  username: string;
  locale: string;
  viewMode: ViewMode;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  lockPassword: boolean;
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  sorting: Sorting;
}
