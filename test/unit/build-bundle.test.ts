/**
 * The server bundle (dist/server/fm.cjs, built by config/build.mjs in the global set-up): what it
 * leaves out (code every start would compile and never run), and what its loader relies on.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import mime from 'mime-types';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/server.ts';

/** mime-db's table (the package has no types): media type → its charset, extensions, source. */
const mimeDb: Record<string, { charset?: string }> = createRequire(import.meta.url)('mime-db');

const serverDir = path.join(PROJECT_ROOT, 'dist', 'server');
const script = fs.readFileSync(path.join(serverDir, 'fm.cjs'), 'latin1');
/** The `// <input file>` markers esbuild writes above each bundled module. */
const bundledInputs = [...script.matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].map((m) => m[1]);

describe('the server bundle', () => {
  it("keeps only zod's English messages", () => {
    const locales = bundledInputs.filter((f) => /\/zod\/v4\/locales\/(?!index)/.test(f));
    expect(locales.map((f) => path.basename(f))).toEqual(['en.js']);
  });

  it('holds one mime-types (the nested mime-types 2 copies use the top-level one) and no mime-db', () => {
    expect(bundledInputs.filter((f) => f.endsWith('/mime-types/index.js'))).toHaveLength(1);
    expect(bundledInputs.filter((f) => f.includes('/mime-db/'))).toEqual([]);
  });

  it("holds mime-types' own tables, built at build time instead of at every start", () => {
    const table = (name: string) => JSON.parse(new RegExp(`Object\\.assign\\(exports\\d*\\.${name}, JSON\\.parse\\('([^']*)'\\)\\)`).exec(script)?.[1] ?? '{}');
    expect(table('types')).toEqual({ ...mime.types });
    expect(table('extensions')).toEqual({ ...mime.extensions });
    expect(script).not.toMatch(/populateMaps\(exports/);
  });

  it("holds, of mime-db, every type's charset, which is what mime-types' charset() reads", () => {
    const db = /^\s*var db = JSON\.parse\('([^']*)'\);$/m.exec(script)?.[1];
    const charsets: Record<string, { charset: string }> = JSON.parse(db ?? '{}');
    const expected = Object.entries(mimeDb).filter(([, entry]) => entry.charset);
    expect(expected.length).toBeGreaterThan(10);
    expect(Object.entries(charsets)).toEqual(expected.map(([type, entry]) => [type, { charset: entry.charset }]));
  });

  it("holds one http-errors (http-assert's pinned copy uses the top-level one)", () => {
    expect(bundledInputs.filter((f) => f.endsWith('/http-errors/index.js'))).toEqual([expect.not.stringContaining('http-assert')]);
  });

  it("holds @keyv/sqlite with the one keyv fm imports (Node's loader compiled both, with no code cache, at every start)", () => {
    expect(script).not.toMatch(/require\("(@keyv\/sqlite|keyv)"\)/);
    expect(bundledInputs.filter((f) => f.includes('/@keyv/sqlite/'))).toEqual([expect.stringMatching(/\/@keyv\/sqlite\/dist\/index\.js$/)]);
    expect(bundledInputs.filter((f) => /\/keyv\/dist\//.test(f) && !f.includes('@keyv'))).toEqual([expect.stringMatching(/\/keyv\/dist\/index\.js$/)]);
  });

  it('leaves node:https (and tls) to a start with --cert: no static require of it', () => {
    expect(script).not.toMatch(/(__fmBuiltinView|__toESM)\(require\("(node:)?(https|tls)"\)/);
  });

  it('makes one ES module view of each Node built-in, shared by its importers (esbuild makes one per import)', () => {
    expect(script).not.toMatch(/__toESM\(require\("(node:)?(fs|path|crypto|os|http)"\)/);
    expect(script.match(/__fmBuiltinView\(require\("node:fs"\)\)/g)?.length).toBeGreaterThan(1);
    expect(script.match(/var __fmBuiltinView = /g)).toHaveLength(1);
  });

  it("parses bundled JSON from a string (statuses' codes: JSON.parse, not an object literal)", () => {
    const codes = /^\/\/ \S*\/statuses\/codes\.json\n(?:.*\n){2}(.*)$/m.exec(script)?.[1];
    expect(codes?.trim()).toMatch(/^module\d*\.exports = JSON\.parse\(['"`]\{/);
  });

  it("is one CommonJS script that names its content's hash, whose import() calls all go to the loader (src/boot/)", () => {
    const hash = /^\/\* fm-bundle ([0-9a-f]{64}) \*\//.exec(script)?.[1] ?? '';
    expect(
      crypto
        .createHash('sha256')
        .update(Buffer.from(script.replace(hash, '0'.repeat(64)), 'latin1'))
        .digest('hex'),
    ).toBe(hash);
    // esbuild prints every string literal in double quotes (single-quoted ones are in comments).
    expect(script.match(/\bimport\("/g)).toBeNull();
    expect(script).toContain('__fmImport("sharp")');
    // ASCII, which the loader reads as Latin-1.
    expect(/[^\x00-\x7f]/.test(script)).toBe(false);
  });
});
