/**
 * `validate({ body, query, params })`: parses the request's parts with zod schemas into a typed
 * `ctx.state.input` before the handler runs (outline's validate middleware). The first issue
 * becomes a 400 `field: message` (schemas/issues.ts). The query is decoded strictly.
 */
import type { z } from 'zod';
import { BadRequestError, FmError, NotFoundError } from '../../errors.ts';
import { describeIssue } from '../../schemas/issues.ts';
import { strictQuery } from '../files-request.ts';
import type { FmContext, FmMiddleware } from '../types.ts';

export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

/** What the handler reads from `ctx.state.input`: each part as its schema outputs it. */
export type Input<S extends RequestSchemas> = { [K in keyof S]: S[K] extends z.ZodType ? z.output<S[K]> : never };

const sources = {
  body: (ctx: FmContext) => ctx.request.body,
  query: (ctx: FmContext) => strictQuery(ctx.querystring),
  params: (ctx: FmContext) => ctx.params ?? {},
} satisfies Record<keyof RequestSchemas, (ctx: FmContext) => unknown>;

/** The middleware that parses the parts `schemas` names into `ctx.state.input` (400 on the first issue). */
export function validate<S extends RequestSchemas>(schemas: S): FmMiddleware {
  return async (ctx, next) => {
    const input: Record<string, unknown> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const r = await schema.safeParseAsync(sources[part](ctx));
      if (!r.success) {
        const { status, message } = describeIssue(part, r.error);
        throw status === 400
          ? new BadRequestError(message, 'invalid_input')
          : status === 404
            ? new NotFoundError(message)
            : new FmError(status, 'invalid_input', message);
      }
      input[part] = r.data;
    }
    ctx.state.input = input;
    await next();
  };
}

/** The parsed input of a route that ran `validate(schemas)`. */
export function inputOf<S extends RequestSchemas>(ctx: FmContext, _schemas: S): Input<S> {
  return ctx.state.input as Input<S>;
}
