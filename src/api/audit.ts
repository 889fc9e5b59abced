/**
 * The audit log's contract (GET /api/audit, `fm audit ls`, the Activity pages): action names,
 * the wire entry, the filter, and the CSV form. Pure: no zod, no Node built-ins.
 */

/** Every action the log records (docs/audit.md says when each one is written). */
export const AUDIT_ACTIONS = [
  'login',
  'login-failed',
  'logout',
  'renew',
  'create',
  'save',
  'upload',
  'rename',
  'move',
  'copy',
  'delete',
  'restore',
  'download',
  'preview',
  'share-create',
  'share-delete',
  'share-hit',
  'user-change',
  'settings-change',
  'command',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One entry as GET /api/audit answers it. */
export interface AuditEntry {
  /** ISO 8601, UTC, milliseconds. */
  time: string;
  /** The user's name (at the time), or the name tried at a failed login; null when anonymous. */
  actor: string | null;
  /** The share link's hash for public hits; null otherwise. */
  share: string | null;
  /** The client's address (forwarded by a trusted proxy, else the peer). */
  address: string | null;
  action: AuditAction;
  /** The path acted on (under the actor's scope; for a share hit, under the link), or null. */
  path: string | null;
  /** The destination of a copy, move or rename. */
  dest: string | null;
  /** Bytes written or read, when known (a file's size; archives are streamed and not counted). */
  bytes: number | null;
  /** The HTTP status answered; for a command, its exit code. */
  status: number | null;
  /** What else the action needs said: changed field names, an archive's entries, a command line. */
  detail: string | null;
  /** A command's run time in milliseconds. */
  duration: number | null;
}

/** GET /api/audit/status: the state of the log itself. */
export interface AuditStatus {
  /** Entries that could not be written since this server started (database full or failing). */
  lost: number;
  /** Days an entry is kept before the background pruning removes it. */
  retentionDays: number;
}

/** Largest page GET /api/audit answers (exports ask for it). */
export const AUDIT_MAX_LIMIT = 10_000;
export const AUDIT_DEFAULT_LIMIT = 100;
/** Default retention: 90 days, in seconds (settings.auditRetention). */
export const AUDIT_DEFAULT_RETENTION = 90 * 24 * 60 * 60;

const AGO = /^(\d+)\s*(s|m|h|d)$/i;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A point in time as `since`/`until` take it: a duration back from `now` (`24h`, `7d`, `30m`)
 * or an ISO 8601 date; undefined when it is neither.
 */
export function parseAuditTime(raw: string, now = Date.now()): number | undefined {
  const ago = AGO.exec(raw.trim());
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2].toLowerCase()];
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) return undefined;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? undefined : t;
}

export const AUDIT_CSV_COLUMNS = ['time', 'actor', 'share', 'address', 'action', 'path', 'dest', 'bytes', 'status', 'detail', 'duration'] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. A
 * text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first: a login name is
 * whatever a visitor typed) gets a leading apostrophe (OWASP's CSV injection advice).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const s = typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Entries as CSV: a header line, then one CRLF-terminated line per entry (RFC 4180). */
export function auditCsv(entries: AuditEntry[]): string {
  const lines = [AUDIT_CSV_COLUMNS.join(',')];
  for (const e of entries) lines.push(AUDIT_CSV_COLUMNS.map((c) => csvField(e[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
