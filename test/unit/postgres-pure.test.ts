/** The pure parts of the PostgreSQL engine: placeholders, and credentials kept out of messages. */
import { describe, expect, it } from 'vitest';
import { toNumberedPlaceholders } from '../../src/storage/postgres/placeholders.ts';
import { isPostgresUrl, redactText, redactUrl } from '../../src/storage/postgres/url.ts';
import { isConnectionError } from '../../src/storage/postgres/unavailable.ts';

describe('portable SQL on PostgreSQL', () => {
  it('numbers ? placeholders in order', () => {
    expect(toNumberedPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe('SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)');
  });

  it('leaves a ? inside strings, quoted identifiers and comments alone', () => {
    expect(toNumberedPlaceholders(`SELECT '?', 'it''s ?', "col?" FROM t -- why?\nWHERE x = ? /* ? */ AND y = ?`)).toBe(
      `SELECT '?', 'it''s ?', "col?" FROM t -- why?\nWHERE x = $1 /* ? */ AND y = $2`,
    );
  });
});

describe('PostgreSQL locations', () => {
  it('tells a URL from a SQLite path', () => {
    expect(isPostgresUrl('postgres://u@h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://u@h/db')).toBe(true);
    expect(isPostgresUrl('/var/lib/fm/fm.db')).toBe(false);
    expect(isPostgresUrl('postgres.db')).toBe(false);
  });

  it('redacts the password of a URL, in the userinfo and as a parameter', () => {
    expect(redactUrl('postgres://fm:s3cr%40t@db.example:5432/fm?sslmode=require')).toBe('postgres://fm:***@db.example:5432/fm?sslmode=require');
    expect(redactUrl('postgres://fm@db/fm?password=hunter2')).not.toContain('hunter2');
    expect(redactUrl('postgres://fm@db/fm')).toBe('postgres://fm@db/fm');
  });

  it('redacts the password wherever it appears in a message, raw or percent-encoded', () => {
    const url = 'postgres://fm:s3cr%40t@db/fm';
    const text = redactText(`connect ${url} failed: password "s3cr@t" rejected (s3cr%40t)`, url);
    expect(text).not.toMatch(/s3cr/);
    expect(text).toContain('postgres://fm:***@db/fm');
  });

  it('tells a lost connection from a failed query', () => {
    expect(isConnectionError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
  });
});
