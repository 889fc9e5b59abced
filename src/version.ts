import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths.ts';

/** fm's version, read once from package.json. */
export const VERSION: string = (() => {
  try {
    return JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version as string;
  } catch {
    return '0.0.0';
  }
})();
