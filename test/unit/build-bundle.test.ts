/**
 * What config/build.mjs leaves out of the server bundle (dist/server, built by the global set-up):
 * code every start would compile and never run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/server.ts';

const serverDir = path.join(PROJECT_ROOT, 'dist', 'server');
/** The `// <input file>` markers esbuild writes above each bundled module. */
const chunks = fs
  .readdirSync(serverDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => fs.readFileSync(path.join(serverDir, f), 'utf8'));
const bundledInputs = chunks.flatMap((code) => [...code.matchAll(/^\/\/ (\S*node_modules\/\S+)$/gm)].map((m) => m[1]));

describe('the server bundle', () => {
  it("keeps only zod's English messages", () => {
    const locales = bundledInputs.filter((f) => /\/zod\/v4\/locales\/(?!index)/.test(f));
    expect(locales.map((f) => path.basename(f))).toEqual(['en.js']);
  });

  it('holds one MIME table (the nested mime-types 2 copies use the top-level mime-types)', () => {
    expect(bundledInputs.filter((f) => f.endsWith('/mime-db/db.json'))).toHaveLength(1);
    expect(bundledInputs.filter((f) => f.endsWith('/mime-types/index.js'))).toHaveLength(1);
  });

  it('parses bundled JSON from a string (mime-db: JSON.parse, not an object literal)', () => {
    const mimeDb = chunks.map((code) => /^\/\/ \S*\/mime-db\/db\.json\n(?:.*\n){2}(.*)$/m.exec(code)?.[1]).find(Boolean);
    expect(mimeDb?.trim()).toMatch(/^module\.exports = JSON\.parse\(['"]\{/);
  });
});
