/**
 * Koa context types. Koa's DefaultState and DefaultContext are augmented here, so every
 * middleware and router sees `ctx.services`, `ctx.params` and the typed `ctx.state`.
 */
import type Koa from 'koa';
import type Router from '@koa/router';
import type { SharedSettings } from '../api/settings.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { TokenClaims } from '../services/tokens.ts';
import type { AccessTokenRecord } from '../storage/repos/access-tokens.ts';
import type { Services } from '../services/index.ts';
import type { AuditNote } from './audit.ts';

export interface FmState {
  /** The signed-in user, re-read from the database for this request. */
  user?: UserRecord;
  /** Claims of the token that authenticated the request (absent in no-auth and proxy modes). */
  claims?: TokenClaims;
  /** The personal access token that authenticated the request, if one did (the user is narrowed to it). */
  accessToken?: AccessTokenRecord;
  /** Settings read once for this request. */
  settings?: SharedSettings;
  requestId: string;
  /** The request's parsed input, set by validate() (read it with inputOf). */
  input?: unknown;
  /** What this request does, for the audit log (set with auditAs, server/audit.ts). */
  audit?: Partial<AuditNote>;
}

declare module 'koa' {
  interface DefaultState extends FmState {}
  interface DefaultContext {
    services: Services;
    params: Record<string, string>;
  }
}

export type FmContext = Koa.ParameterizedContext;
export type FmMiddleware = Koa.Middleware;
export type FmRouter = Router;
