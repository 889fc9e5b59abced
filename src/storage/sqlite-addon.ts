/**
 * sqlite3's native addon, required from the place its build puts it before sqlite3 asks the `bindings` package to find
 * it: bindings reads the call stack for the package's root and tries its candidate folders one by one, ~1.5 ms of every
 * start (plain Node: 2.2 ms against 0.7 for the addon alone). Imported for its effect by db.ts, before sqlite3.
 *
 * Only while the lookup would find the same file: sqlite3's binding module is still the one line that calls bindings,
 * and of bindings' candidates the addon exists in `build/Release` and in neither of the two it tries first. Otherwise
 * nothing is done and sqlite3 looks the addon up itself.
 */
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';

/** sqlite3's lib/sqlite3-binding.js (5.x), whole. */
const BINDING_SOURCE = "module.exports = require('bindings')('node_sqlite3.node');";

/** The addon's path if sqlite3's own lookup (`bindings`) would find it in `build/Release`, else undefined. */
export function releaseAddon(bindingFile: string): string | undefined {
  let source: string;
  try {
    source = fs.readFileSync(bindingFile, 'utf8');
  } catch {
    return undefined;
  }
  if (source.trim() !== BINDING_SOURCE) return undefined;
  const build = path.join(path.dirname(bindingFile), '..', 'build');
  const earlier = [path.join(build, 'node_sqlite3.node'), path.join(build, 'Debug', 'node_sqlite3.node')];
  const release = path.join(build, 'Release', 'node_sqlite3.node');
  return earlier.some((file) => fs.existsSync(file)) || !fs.existsSync(release) ? undefined : release;
}

/** Puts the addon in the module cache as sqlite3's binding module; false if it left the lookup to sqlite3. */
export function preloadSqliteAddon(requireFrom: NodeJS.Require = createRequire(import.meta.url)): boolean {
  const bindingFile = requireFrom.resolve('sqlite3/lib/sqlite3-binding.js');
  if (requireFrom.cache[bindingFile]) return false;
  const addon = releaseAddon(bindingFile);
  if (!addon) return false;
  const binding = new Module(bindingFile);
  binding.filename = bindingFile;
  binding.exports = requireFrom(addon);
  binding.loaded = true;
  requireFrom.cache[bindingFile] = binding;
  return true;
}

preloadSqliteAddon();
