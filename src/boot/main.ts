/** What bin/fm.js loads: fm's CommonJS build, run with V8's code cache (script.ts). */
import { fileURLToPath } from 'node:url';
import { codeCacheFolder } from './code-cache.ts';
import { tuneGcForStreaming } from './heap.ts';
import { runScript } from './script.ts';

// Before the script is compiled: V8 accepts a code cache only under the flags it was made with.
tuneGcForStreaming();
runScript(fileURLToPath(new URL('./fm.cjs', import.meta.url)), codeCacheFolder());
