/**
 * Options for a parse that runs once: a schema's defaults, the stored settings once per change.
 * zod compiles a fast path for each object schema on its first parse (`new Function`, which V8's
 * code cache cannot keep: ~15 ms for the settings at every start), and that costs more than it
 * saves on one object. A schema parsed often still gets it, on its first ordinary parse.
 */
export const PARSE_ONCE = { jitless: true } as const;
