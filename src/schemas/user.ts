/** Server-side schemas of the user contract (src/api/user.ts): zod, for the server, storage and CLI. */
import { z } from 'zod';
import { VIEW_MODES, type Permissions, type Rule, type Sorting, type UserData, type UserWrite } from '../api/user.ts';
import { objectBody, queryFlag, recordId } from './request.ts';
import { sameType } from './same-type.ts';
import { PARSE_ONCE } from './parse-once.ts';

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
sameType<z.output<typeof PermissionsSchema>, Permissions>(true);

export const SortingSchema = z.object({
  by: z.string().default('name'),
  asc: z.boolean().default(true),
});
sameType<z.output<typeof SortingSchema>, Sorting>(true);

export const RuleSchema = z.object({
  regex: z.boolean().default(false),
  allow: z.boolean().default(false),
  path: z.string().default(''),
  regexp: z.object({ raw: z.string().default('') }).default({ raw: '' }),
});
sameType<z.output<typeof RuleSchema>, Rule>(true);

/** A quota: a whole number of bytes or entries, 0 for none. */
export const QuotaSchema = z.number().int('must be a whole number').nonnegative('must not be negative').max(Number.MAX_SAFE_INTEGER).default(0);

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
  perm: PermissionsSchema.default(PermissionsSchema.parse({}, PARSE_ONCE)),
  commands: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  sorting: SortingSchema.default({ by: 'name', asc: true }),
  rules: z
    .array(RuleSchema)
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  hideDotfiles: z.boolean().default(false),
  dateFormat: z.boolean().default(false),
  aceEditorTheme: z.string().default(''),
  quota: QuotaSchema,
  quotaFiles: QuotaSchema,
  dirSizes: z.boolean().default(false),
});
sameType<z.output<typeof UserDataSchema>, UserData>(true);

/** Body of POST /api/users and PUT /api/users/{id}. */
export const UserWriteSchema = z.object({
  what: z.literal('user', { error: 'must be "user"' }),
  which: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((v) => v ?? []),
  current_password: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
});
sameType<z.output<typeof UserWriteSchema>, UserWrite>(true);

/** Body of POST /api/users: `which` empty, and the new user's name and password given. */
export const UserCreateSchema = UserWriteSchema.extend({
  which: UserWriteSchema.shape.which.refine((w) => w.length === 0, 'must be empty when creating a user'),
  data: z.looseObject({
    username: z.string({ error: 'is empty' }),
    password: z.string({ error: 'is empty' }).min(1, 'is empty'),
    scope: z.string().default(''),
  }),
});

/** `/api/users/{id}`: an id that cannot name a user is 404. */
export const UserIdParamsSchema = z.object({ id: recordId('user') });

/** DELETE /api/users/{id}: the caller's password (required under json auth). */
export const UserDeleteBodySchema = objectBody(z.object({ current_password: z.string().optional() }));

/** `?force=true`: accept launchers (sh, env, …) in a command allowlist. */
export const ForceQuerySchema = z.object({ force: queryFlag });
