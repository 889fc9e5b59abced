import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// `npm ci` refuses a lock that leaves out any dependency package.json or a locked package
// asks for — even an optional build for another platform. `npm install` against a mirror that
// lacks some platform builds drops them silently; .ci/lock-platforms.mjs puts them back.
describe('package-lock.json', () => {
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };

  function located(from: string, name: string): boolean {
    // Node's resolution: the package's own node_modules, then each enclosing one up to the root.
    let base = from;
    for (;;) {
      if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
      if (!base) return false;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut < 0 ? '' : base.slice(0, cut);
    }
  }

  it('locks every dependency and optional dependency that a locked package declares', () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!located(key, name)) missing.push(`${key || '(root)'} → ${name}`);
      }
    }
    expect(missing, 'run node .ci/lock-platforms.mjs').toEqual([]);
  });
});
