/** A compile-time tie between a zod schema and the shared contract type it parses into. */

/** `true` exactly when A and B are the same type (not merely assignable either way). */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * Fails to compile unless `Out` (a schema's `z.output`) is exactly the contract type `Contract`:
 * `sameType<z.output<typeof XSchema>, X>(true)`. A field added on one side only breaks the build.
 */
export function sameType<Out, Contract>(_proof: Same<Out, Contract>): void {}
