/**
 * The one fetch wrapper: adds the token, maps statuses to typed errors, renews the token when
 * the server asks for it, and ends the session on a 401 (spec §4 "Auth", §8).
 */
import { withBase } from '../config.ts';

/**
 * An HTTP failure; `message` is the server's text (`"404 Not Found: ..."`), `code` its machine code
 * from the `X-Fm-Error` header ('' when the answer had none), which the UI translates.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = '',
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
/** The server could not be reached (status 0). */
export class ConnectionError extends ApiError {
  constructor() {
    super(0, '000 No connection');
    this.name = 'ConnectionError';
  }
}
export class BadRequestError extends ApiError {}
export class UnauthorizedError extends ApiError {}
export class ForbiddenError extends ApiError {}
export class NotFoundError extends ApiError {}
export class MethodNotAllowedError extends ApiError {}
export class ConflictError extends ApiError {}
export class TooManyRequestsError extends ApiError {}
export class ServerError extends ApiError {}

const BY_STATUS: Record<number, new (status: number, message: string, code?: string) => ApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  429: TooManyRequestsError,
};

/** The header in which the server names an error's machine code. */
export const ERROR_CODE_HEADER = 'X-Fm-Error';

/** The typed error for a status, response text and machine code. */
export function toError(status: number, text: string, code = ''): ApiError {
  const Cls = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new Cls(status, text.trim() || `${status} Error`, code);
}

/** The status of any error (0 for a connection failure, 500 for anything unexpected). */
export function statusOf(err: unknown): number {
  return err instanceof ApiError ? err.status : 500;
}

export interface SessionHooks {
  token(): string;
  /** A 401 on a call that is not a login. */
  unauthorized(): void;
  /** The server asked for a renewal (`X-Renew-Token: true`, e.g. after the user's own password change). */
  renew(): void;
}

let hooks: SessionHooks = { token: () => '', unauthorized: () => {}, renew: () => {} };

/** Connects the wrapper to the session state (done once at start-up). */
export function configureSession(h: SessionHooks): void {
  hooks = h;
}

export interface RequestOptions extends Omit<RequestInit, 'body'> {
  body?: BodyInit | null;
  /** Sent as JSON. */
  json?: unknown;
  /** Do not end the session on 401 (login, renew, share passwords). */
  keepSessionOn401?: boolean;
}

/** Calls the API (`path` starts with /api/) and returns the response, or throws an ApiError. */
export async function request(path: string, opts: RequestOptions = {}): Promise<Response> {
  const { json, keepSessionOn401, headers: given, body, ...init } = opts;
  const headers = new Headers(given);
  const token = hooks.token();
  if (token) headers.set('X-Auth', token);
  let payload = body;
  if (json !== undefined) {
    headers.set('Content-Type', 'application/json');
    payload = JSON.stringify(json);
  }
  let res: Response;
  try {
    res = await fetch(withBase(path), { ...init, headers, body: payload });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ConnectionError();
  }
  if (res.headers.get('X-Renew-Token') === 'true') hooks.renew();
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    if (res.status === 401 && !keepSessionOn401) hooks.unauthorized();
    throw toError(res.status, text || `${res.status} ${res.statusText}`, res.headers.get(ERROR_CODE_HEADER) ?? '');
  }
  return res;
}

export async function requestJSON<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await request(path, opts);
  return (await res.json()) as T;
}

export async function requestText(path: string, opts: RequestOptions = {}): Promise<string> {
  const res = await request(path, opts);
  return res.text();
}
