/** The fm binary's entry point (bundled to dist/server/cli.js). */
import { main } from './index.ts';

// `fm users ls | head`: a reader that goes away is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const code = await main(process.argv);
// `serve` keeps running until a signal; every other command ends when its work is done.
process.exitCode = code;
