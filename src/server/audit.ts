/**
 * How requests reach the audit log: a route says what it does with `auditAs(ctx, note)` before
 * it acts, and `recordActivity` (outside the error handler, so it sees the final status, failures
 * included) records the note once the response is over, with the actor, the client address and
 * the status. A response cut short (the client went away mid-download) is recorded as 499.
 */
import type { AuditAction } from '../api/audit.ts';
import type { AuditInput } from '../services/audit.ts';
import type { FmContext, FmMiddleware } from './types.ts';
import { clientAddress } from './client-address.ts';

/** What a route declares about its request. */
export interface AuditNote {
  action: AuditAction;
  /** Recorded instead of `action` when the answer is an error (login → login-failed). */
  failed?: AuditAction;
  path?: string;
  dest?: string;
  /** Bytes written or read; for reads, the response's length is used when this is absent. */
  bytes?: number;
  detail?: string;
  /** Who, when no user is signed in yet (the name a login tried; the user a login signed in). */
  actor?: string;
  actorId?: number;
  /** The public share link the request came through. */
  share?: string;
  /** Entries of an archive (their paths at its root), set by the download code. */
  entries?: string[];
}

/** Actions whose answer body is the content read (its length is the bytes recorded). */
const READS = new Set<AuditAction>(['download', 'preview', 'share-hit']);

/**
 * Declares what this request does, for the audit log; merged into an earlier note, so a route
 * can name the action first and add what it learns (bytes, the final destination) later.
 */
export function auditAs(ctx: FmContext, note: Partial<AuditNote>): void {
  ctx.state.audit = { ...ctx.state.audit, ...note };
}

export const recordActivity: FmMiddleware = async (ctx, next) => {
  try {
    await next();
  } finally {
    const note = ctx.state.audit;
    // A HEAD reads no content (download routes answer it with headers only).
    if (note?.action && ctx.method !== 'HEAD') {
      const write = () => ctx.services.audit.record(entryOf(ctx, { ...note, action: note.action! }));
      if (ctx.res.writableFinished || ctx.respond === false || ctx.res.destroyed) write();
      else ctx.res.once('close', write);
    }
  }
};

function entryOf(ctx: FmContext, note: AuditNote): AuditInput {
  const user = ctx.state.user;
  const status = ctx.respond === false || ctx.res.writableFinished ? ctx.status : 499;
  const failed = status >= 400;
  const action = failed && note.failed ? note.failed : note.action;
  const length = ctx.response.length;
  // Content sent, not the JSON about it (a share's info, a listing).
  const sentContent = READS.has(action) && !failed && status !== 304 && typeof length === 'number' && !ctx.response.is('json');
  const bytes = note.bytes ?? (sentContent ? length : undefined);
  const detail = [note.detail, note.entries && JSON.stringify(note.entries)].filter(Boolean).join(' ');
  // A token limited to a folder sees that folder as its root: record paths in the user's terms.
  const under = ctx.state.accessToken?.path;
  const inScope = (p: string | undefined) => (p === undefined || !under ? p : p === '/' ? under : `${under}${p}`);
  return {
    action,
    actorId: user?.id ?? note.actorId,
    actor: user?.username ?? note.actor,
    share: note.share,
    address: ctx.ip,
    path: inScope(note.path),
    dest: inScope(note.dest),
    bytes,
    status,
    detail: detail || undefined,
  };
}

/** A command run over the WebSocket, once it ended (no HTTP response ends it): its exit code is the status. */
export function recordCommand(ctx: FmContext, run: { folder: string; line: string; code: number; duration: number }): void {
  const user = ctx.state.user;
  ctx.services.audit.record({
    action: 'command',
    actorId: user?.id,
    actor: user?.username,
    address: clientAddress(ctx),
    path: run.folder,
    detail: run.line,
    status: run.code,
    duration: run.duration,
  });
}

/** The names of the top-level fields whose values differ (never the values: passwords are fields). */
export function changedKeys(before: object, after: object, ignore: readonly string[] = []): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => !ignore.includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}
