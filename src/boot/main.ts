/** What bin/fm.js loads: fm's CommonJS build, run with V8's code cache (script.ts). */
import { fileURLToPath } from 'node:url';
import { codeCacheFolder } from './code-cache.ts';
import { runScript } from './script.ts';

runScript(fileURLToPath(new URL('./fm.cjs', import.meta.url)), codeCacheFolder());
