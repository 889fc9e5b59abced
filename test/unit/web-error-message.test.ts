/** API failures read as translated messages: machine code → i18n key, then status, the server's text kept as detail. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorNotice } from '../../web/actions/notify.ts';
import { ApiError, ConnectionError, toError } from '../../web/api/client.ts';
import { describeFailure, ERROR_MESSAGE_KEYS, errorMessageKey } from '../../web/lib/errorMessage.ts';

const en = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../web/i18n/en.json'), 'utf8')) as Record<string, unknown>;
const lookup = (key: string): unknown => key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], en);

describe('error message keys', () => {
  it('chooses by the machine code first', () => {
    expect(errorMessageKey(409, 'exists')).toBe('errors.code.exists');
    expect(errorMessageKey(403, 'permission_required')).toBe('errors.code.permissionRequired');
    expect(errorMessageKey(403, 'denied_by_rule')).toBe('errors.code.deniedByRule');
    expect(errorMessageKey(400, 'invalid_input')).toBe('errors.code.invalidInput');
    expect(errorMessageKey(404, 'not_found')).toBe('errors.code.notFound');
    expect(errorMessageKey(503, 'database_unavailable')).toBe('scaleOut.databaseUnavailable');
  });

  it('falls back to the status for an unknown or missing code (an older server, a proxy)', () => {
    expect(errorMessageKey(409, '')).toBe('errors.code.conflict');
    expect(errorMessageKey(403, 'something_new')).toBe('errors.forbidden');
    expect(errorMessageKey(0, '')).toBe('errors.connection');
    expect(errorMessageKey(502, '')).toBe('errors.internal');
    expect(errorMessageKey(418, '')).toBeUndefined();
  });

  it('names only keys that exist in en.json', () => {
    for (const key of ERROR_MESSAGE_KEYS) expect(typeof lookup(key), key).toBe('string');
  });
});

describe('error notices', () => {
  it('show the translated message with the server text as detail', () => {
    const err = toError(409, '409 Conflict: the destination exists\n', 'exists');
    expect(errorNotice(err)).toEqual({
      kind: 'error',
      message: '409 Conflict: the destination exists',
      key: 'errors.code.exists',
      detail: '409 Conflict: the destination exists',
    });
  });

  it('show a lost connection without a detail line', () => {
    expect(errorNotice(new ConnectionError())).toMatchObject({ key: 'errors.connection', detail: undefined });
  });

  it('show other errors and unknown statuses by their message', () => {
    expect(errorNotice(new Error('Passwords do not match'))).toEqual({ kind: 'error', message: 'Passwords do not match' });
    expect(errorNotice(new ApiError(418, "418 I'm a teapot"))).toEqual({ kind: 'error', message: "418 I'm a teapot" });
  });
});

describe('a failure in one line (the upload panel)', () => {
  const t = (key: string) => `«${key}»`;

  it('translates the code and keeps the server sentence, which carries the numbers', () => {
    expect(describeFailure(507, 'quota', '507 Insufficient Storage: over quota: 800KB for cid, 768KB used; this needs 64KB more', t)).toBe(
      '«quota.over» (over quota: 800KB for cid, 768KB used; this needs 64KB more)',
    );
    expect(describeFailure(507, 'quota', 'over quota: 800KB for cid, 768KB used; this needs 64KB more', t)).toBe(
      '«quota.over» (over quota: 800KB for cid, 768KB used; this needs 64KB more)',
    );
  });

  it('falls back to the status, and drops a text that only repeats it', () => {
    expect(describeFailure(507, '', '507 Insufficient Storage', t)).toBe('«errors.code.noSpace»');
    expect(describeFailure(500, '', '500 Error', t)).toBe('«errors.internal»');
    expect(describeFailure(0, '', 'Failed to fetch', t)).toBe('«errors.connection»');
  });

  it('keeps the text as it is when neither code nor status is known', () => {
    expect(describeFailure(418, '', "I'm a teapot", t)).toBe("I'm a teapot");
    expect(describeFailure(418, '', '', t)).toBe('418');
  });
});
