/** sqlite3's addon required from its known place, without the `bindings` package's search (src/storage/sqlite-addon.ts). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseAddon } from '../../src/storage/sqlite-addon.ts';
import { PROJECT_ROOT, tempDir } from '../helpers/server.ts';

const BINDING = "module.exports = require('bindings')('node_sqlite3.node');\n";

/** A sqlite3 package folder with its binding module and the given addon files (empty). */
function fakePackage(binding: string, addons: string[]): string {
  const pkg = tempDir('fm-sqlite-addon-');
  fs.mkdirSync(path.join(pkg, 'lib'));
  fs.writeFileSync(path.join(pkg, 'lib', 'sqlite3-binding.js'), binding);
  for (const addon of addons) {
    fs.mkdirSync(path.dirname(path.join(pkg, addon)), { recursive: true });
    fs.writeFileSync(path.join(pkg, addon), '');
  }
  return pkg;
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("sqlite3's addon", () => {
  it('is taken from build/Release only where bindings would find it there', () => {
    const cases: Array<[string, string[], boolean]> = [
      [BINDING, ['build/Release/node_sqlite3.node'], true],
      [BINDING, [], false],
      [BINDING, ['build/Debug/node_sqlite3.node', 'build/Release/node_sqlite3.node'], false],
      [BINDING, ['build/node_sqlite3.node', 'build/Release/node_sqlite3.node'], false],
      ["module.exports = require('node-gyp-build')(__dirname + '/..');\n", ['build/Release/node_sqlite3.node'], false],
    ];
    for (const [binding, addons, found] of cases) {
      const pkg = fakePackage(binding, addons);
      made.push(pkg);
      const expected = found ? path.join(pkg, 'build', 'Release', 'node_sqlite3.node') : undefined;
      expect(releaseAddon(path.join(pkg, 'lib', 'sqlite3-binding.js')), addons.join(' ')).toBe(expected);
    }
  });

  it('is found so in the installed sqlite3 (else the start pays bindings again)', () => {
    const bindingFile = createRequire(path.join(PROJECT_ROOT, 'package.json')).resolve('sqlite3/lib/sqlite3-binding.js');
    expect(releaseAddon(bindingFile)).toMatch(/[\\/]build[\\/]Release[\\/]node_sqlite3\.node$/);
  });

  it('opens databases after the preload, without loading bindings', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(process.cwd() + '/');
      await import('./src/storage/sqlite-addon.ts');
      const sqlite3 = require('sqlite3');
      new sqlite3.Database(':memory:').get('select 41 + 1 as answer', (err, row) => {
        const bindings = Object.keys(require.cache).some((f) => /[\\\\/]bindings[\\\\/]bindings\\.js$/.test(f));
        console.log(JSON.stringify({ error: err?.message, row, bindings }));
      });`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ row: { answer: 42 }, bindings: false });
  });
});
