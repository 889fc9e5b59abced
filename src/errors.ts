/**
 * Errors are classes, not factories, so `instanceof` works across the codebase.
 * The HTTP layer renders any FmError as `<status> <message>` text and sends its `code` in the
 * `X-Fm-Error` header, which the UI translates; anything else is a 500 (`internal`).
 */

/** The finer codes a 400/403/409 may carry instead of its status's generic one (the UI translates each). */
export type BadRequestCode = 'bad_request' | 'invalid_input';
export type ForbiddenCode = 'forbidden' | 'permission_required' | 'denied_by_rule' | 'outside_scope' | 'otp_invalid' | 'upload_only' | 'not_upload_only';
export type ConflictCode = 'conflict' | 'exists';
export class FmError extends Error {
  /** HTTP status this error maps to. */
  readonly status: number;
  /** Stable machine-readable code, e.g. "not_found". */
  readonly code: string;
  /** Extra response headers (Retry-After, Allow, ...). */
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export class BadRequestError extends FmError {
  constructor(message = 'bad request', code: BadRequestCode = 'bad_request') {
    super(400, code, message);
  }
}
export class UnauthorizedError extends FmError {
  constructor(message = 'unauthorized') {
    super(401, 'unauthorized', message);
  }
}
/** 401 for a right password of a user with two-factor login, sent without a code (`X-FM-OTP: required`). */
export class OtpRequiredError extends FmError {
  constructor() {
    super(401, 'otp_required', 'a two-factor code is required', { 'X-FM-OTP': 'required' });
  }
}
export class ForbiddenError extends FmError {
  constructor(message = 'forbidden', code: ForbiddenCode = 'forbidden') {
    super(403, code, message);
  }
}
export class NotFoundError extends FmError {
  constructor(message = 'not found') {
    super(404, 'not_found', message);
  }
}
export class MethodNotAllowedError extends FmError {
  constructor(message = 'method not allowed') {
    super(405, 'method_not_allowed', message);
  }
}
export class MisdirectedRequestError extends FmError {
  /** 421: the request names a host this server does not serve (DNS rebinding). */
  constructor(message = 'misdirected request') {
    super(421, 'misdirected_request', message);
  }
}
export class ConflictError extends FmError {
  constructor(message = 'conflict', code: ConflictCode = 'conflict') {
    super(409, code, message);
  }
}
export class PayloadTooLargeError extends FmError {
  constructor(message = 'payload too large') {
    super(413, 'payload_too_large', message);
  }
}
export class UnsupportedMediaTypeError extends FmError {
  constructor(message = 'unsupported media type') {
    super(415, 'unsupported_media_type', message);
  }
}
export class RangeNotSatisfiableError extends FmError {
  constructor(message = 'range not satisfiable', size?: number) {
    super(416, 'range_not_satisfiable', message, size === undefined ? {} : { 'Content-Range': `bytes */${size}` });
  }
}
export class LockedError extends FmError {
  constructor(message = 'locked') {
    super(423, 'locked', message);
  }
}
export class TooManyRequestsError extends FmError {
  constructor(retryAfterSeconds: number, message = 'too many requests') {
    super(429, 'too_many_requests', message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}
export class UnsupportedError extends FmError {
  /** 501: used by previews for files that are not images (filebrowser's status). */
  constructor(message = 'not an image') {
    super(501, 'not_implemented', message);
  }
}
export class PreconditionFailedError extends FmError {
  constructor(message = 'precondition failed') {
    super(412, 'precondition_failed', message);
  }
}

/** A request that names another server (a WebDAV Destination on another host). */
export class BadGatewayError extends FmError {
  constructor(message = 'bad gateway') {
    super(502, 'bad_gateway', message);
  }
}

export class InsufficientStorageError extends FmError {
  constructor(message = 'insufficient storage') {
    super(507, 'insufficient_storage', message);
  }
}

/**
 * Maps Node's file-system errno codes (and SQLite's "disk full") to FmErrors; returns undefined
 * for unknown errors.
 */
export function errnoToFmError(err: unknown): FmError | undefined {
  if (err instanceof FmError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return new NotFoundError('not found');
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new ConflictError('already exists', 'exists');
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ForbiddenError('permission denied by the file system');
    case 'ENOTDIR':
      return new BadRequestError('not a directory');
    case 'EISDIR':
      return new BadRequestError('is a directory');
    case 'ENAMETOOLONG':
      return new BadRequestError('name too long');
    case 'ELOOP':
      return new ForbiddenError('too many symbolic links');
    case 'ENOSPC':
    case 'EDQUOT':
      return new InsufficientStorageError('no space left on device');
    case 'SQLITE_FULL':
      return new InsufficientStorageError('the database disk is full: free space on the disk that holds the database');
    case 'EINVAL':
      return new BadRequestError('invalid argument');
    default:
      return undefined;
  }
}

/** Thrown by CLI actions for usage errors (exit code 2). */
export class UsageError extends FmError {
  constructor(message: string) {
    super(400, 'usage', message);
  }
}
