/** The contract in src/api is what the web bundle imports: pure TypeScript, no zod, no node, no server code. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const API = path.join(import.meta.dirname, '..', '..', 'src', 'api');

describe('src/api', () => {
  it('imports only its own modules and pure browser-safe packages', () => {
    const files = readdirSync(API).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const source = readFileSync(path.join(API, file), 'utf8');
      const specifiers = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      // Its own modules, and `bytes` (pure JavaScript, made for browsers too) for sizes.
      for (const s of specifiers) expect(`${file}: ${s}`).toMatch(/: (\.\/[a-z-]+\.ts|bytes)$/);
    }
  });
});
