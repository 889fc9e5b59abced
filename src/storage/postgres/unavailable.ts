/** The database cannot be reached: a 503 the client may retry, told apart from a failed query. */
import { FmError } from '../../errors.ts';

export class DatabaseUnavailableError extends FmError {
  constructor(detail: string) {
    super(503, 'database_unavailable', `the database is unreachable (${detail}); try again shortly`, { 'Retry-After': '5' });
  }
}

/** SQLSTATE classes 08 (connection exception) and 57P (the server shutting down or starting). */
const CONNECTION_STATES = /^(08|57P)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether a pg error means the connection is gone (rather than that the query was wrong). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || CONNECTION_STATES.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused/i.test(message);
}
