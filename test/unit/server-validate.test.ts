/** validate(): request input parsed by zod schemas into ctx.state.input, bad input as a clear 400 (or the schema's status). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FmError } from '../../src/errors.ts';
import { objectBody, queryCount, queryFlag, recordId } from '../../src/schemas/request.ts';
import { inputOf, validate, type RequestSchemas } from '../../src/server/middleware/validate.ts';
import type { FmContext } from '../../src/server/types.ts';

/** Runs validate() on a minimal context; returns the input the handler would read, or the error thrown. */
async function run<S extends RequestSchemas>(schemas: S, req: { body?: unknown; querystring?: string; params?: Record<string, string> }) {
  const ctx = { request: { body: req.body }, querystring: req.querystring ?? '', params: req.params ?? {}, state: {} } as unknown as FmContext;
  let reached = false;
  try {
    await validate(schemas)(ctx, async () => {
      reached = true;
    });
  } catch (err) {
    return { error: err as FmError };
  }
  expect(reached).toBe(true);
  return { input: inputOf(ctx, schemas) };
}

describe('validate()', () => {
  const schemas = {
    params: z.object({ id: recordId('user') }),
    query: z.object({ force: queryFlag, limit: queryCount, name: z.string().optional() }),
    body: objectBody(z.object({ what: z.literal('user', { error: 'must be "user"' }), tags: z.array(z.string()).default([]) })),
  };

  it('hands the handler typed, parsed input', async () => {
    const { input } = await run(schemas, { params: { id: '7' }, querystring: 'force=true&limit=20&name=a%20b+c', body: { what: 'user' } });
    expect(input).toEqual({ params: { id: 7 }, query: { force: true, limit: 20, name: 'a b c' }, body: { what: 'user', tags: [] } });
  });

  it('answers 400 "field: message" for the first issue', async () => {
    const { error } = await run(schemas, { params: { id: '7' }, body: { what: 'share' } });
    expect([error?.status, error?.message]).toEqual([400, 'what: must be "user"']);
    const nested = await run(schemas, { params: { id: '7' }, body: { what: 'user', tags: ['a', 3] } });
    expect([nested.error?.status, nested.error?.message]).toEqual([400, 'tags.1: Invalid input: expected string, received number']);
    const count = await run(schemas, { params: { id: '7' }, querystring: 'limit=-1', body: { what: 'user' } });
    expect(count.error?.message).toBe('limit: must be a non-negative integer');
  });

  it('names the request part when the whole part is wrong', async () => {
    const { error } = await run({ body: z.object({}, { error: 'expected an object' }) }, { body: [1] });
    expect(error?.message).toBe('body: expected an object');
  });

  it('lets a schema choose the status: an id that cannot name a record is 404', async () => {
    for (const id of ['0', 'abc', '1e3', '9999999999999999']) {
      const { error } = await run(schemas, { params: { id }, body: { what: 'user' } });
      expect([id, error?.status, error?.message]).toEqual([id, 404, 'id: user not found']);
    }
  });

  it('decodes the query strictly: invalid UTF-8 is a 400 naming the parameter, never U+FFFD', async () => {
    const { error } = await run({ query: z.object({ name: z.string().optional() }) }, { querystring: 'name=%FF' });
    expect([error?.status, error?.message]).toEqual([400, 'invalid percent-encoding or UTF-8 in name']);
    const { input } = await run({ query: z.object({ name: z.string().optional() }) }, { querystring: 'name=%C3%A9&name=second' });
    expect(input?.query.name).toBe('é');
  });

  it('treats a missing body as an empty object where the schema says so', async () => {
    const { input } = await run({ body: objectBody(z.object({ current_password: z.string().optional() })) }, {});
    expect(input?.body).toEqual({});
  });
});
