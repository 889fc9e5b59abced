/** Tells the loader that started this process (boot/script.ts) that the server listens. */
import type { BootHooks } from './script.ts';

/** The loader's hooks: a parameter of the CommonJS build's wrapper, undeclared in the ESM build. */
declare const __fmBoot: BootHooks | undefined;

export function announceStarted(): void {
  if (typeof __fmBoot !== 'undefined') __fmBoot?.started();
}
