/**
 * The node:fs types other modules need. Only disk/ imports node:fs (a lint rule enforces it,
 * and it cannot tell a type-only import from a real one), so the types are re-exported here.
 */
export type { BigIntStats, Dirent, Stats } from 'node:fs';
export type { FileHandle } from 'node:fs/promises';
