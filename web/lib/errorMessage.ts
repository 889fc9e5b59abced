/**
 * What the user reads for a failed API call: a translated sentence chosen by the server's machine
 * code (`X-Fm-Error`, src/errors.ts), falling back to one by status; the server's own English text
 * stays as a detail line.
 */

/** Machine code → i18n key. Codes not listed fall back to their status. */
const BY_CODE: Record<string, string> = {
  bad_request: 'errors.code.badRequest',
  invalid_input: 'errors.code.invalidInput',
  unauthorized: 'errors.code.unauthorized',
  forbidden: 'errors.forbidden',
  permission_required: 'errors.code.permissionRequired',
  denied_by_rule: 'errors.code.deniedByRule',
  outside_scope: 'errors.code.outsideScope',
  not_found: 'errors.code.notFound',
  conflict: 'errors.code.conflict',
  exists: 'errors.code.exists',
  payload_too_large: 'errors.code.tooLarge',
  locked: 'errors.code.locked',
  too_many_requests: 'errors.code.tooManyRequests',
  insufficient_storage: 'errors.code.noSpace',
  quota: 'quota.over',
  internal: 'errors.internal',
  database_unavailable: 'scaleOut.databaseUnavailable',
};

const BY_STATUS: Record<number, string> = {
  0: 'errors.connection',
  400: BY_CODE.bad_request,
  401: BY_CODE.unauthorized,
  403: BY_CODE.forbidden,
  404: BY_CODE.not_found,
  409: BY_CODE.conflict,
  413: BY_CODE.payload_too_large,
  423: BY_CODE.locked,
  429: BY_CODE.too_many_requests,
  507: BY_CODE.insufficient_storage,
};

/** Every key errorMessageKey can return (the locale test checks each exists). */
export const ERROR_MESSAGE_KEYS: readonly string[] = [...new Set([...Object.values(BY_CODE), ...Object.values(BY_STATUS)])];

/** The i18n key for an API failure, or undefined when neither its code nor its status is known. */
export function errorMessageKey(status: number, code: string): string | undefined {
  return BY_CODE[code] ?? BY_STATUS[status] ?? (status >= 500 ? BY_CODE.internal : undefined);
}

/**
 * A failure in one line, in the user's language: the sentence for its code or status, then the
 * server's own text (often English, but it carries the numbers, e.g. a quota's) in parentheses.
 */
export function describeFailure(status: number, code: string, text: string, t: (key: string) => string): string {
  const key = errorMessageKey(status, code);
  if (!key) return text || String(status);
  const sentence = t(key);
  // The server's text starts with its status line ("507 Insufficient Storage: …"), which the
  // sentence already says; a lost connection has no server text at all.
  const detail = status === 0 ? '' : text.replace(/^\d{3}\b[^:]*(:\s*|$)/, '').trim();
  return !detail || detail === sentence ? sentence : `${sentence} (${detail})`;
}
