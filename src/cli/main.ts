/** The fm binary's entry point (bundled to dist/server/fm.cjs, run by src/boot/). */
import { main } from './index.ts';

// `fm users ls | head`: a reader that goes away is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// `serve` keeps running until a signal; every other command ends when its work is done.
// No top-level await: the bundle is a CommonJS script (config/build.mjs).
void main(process.argv).then((code) => {
  process.exitCode = code;
});
