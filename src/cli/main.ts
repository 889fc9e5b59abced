/** The fm binary's entry point (bundled to dist/cli.js). */
import { main } from './index.ts';

const code = await main(process.argv);
// `serve` keeps running until a signal; every other command ends when its work is done.
process.exitCode = code;
