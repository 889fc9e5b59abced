/** Where fm keeps its own files: the package (for the built UI) and the data folder. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/** The folder holding fm's package.json, found from this module's location (src/ or dist/). */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        if (JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'fm') {
          cachedRoot = dir;
          return dir;
        }
      } catch {
        // keep looking upwards
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the fm package root');
    dir = parent;
  }
}

/** `$XDG_DATA_HOME/fm`, else `~/.local/share/fm`. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'fm');
}

export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'fm.db');
}
