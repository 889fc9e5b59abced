/**
 * Runs fm's CommonJS build (dist/server/fm.cjs, config/build.mjs) through `vm.Script` with V8's
 * code cache of an earlier start: compiling the server's code was a large part of its start-up,
 * and Node 20 has no compile cache of its own (Node 24's, for ES modules, saved less). A start
 * with no valid cache writes one once the server listens (`__fmBoot.started()`), so that it holds
 * every function compiled while starting; other commands only read it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { identityOf, readCache, readingBlock, readWhole, writeCache } from './code-cache.ts';

/** What the bundle can call back: its free name `__fmBoot` (boot/started.ts). */
export interface BootHooks {
  started(): void;
}

/** The hash config/build.mjs writes in the bundle's first line. */
export function bundleHashOf(source: string): string | undefined {
  return /^\/\* fm-bundle ([0-9a-f]{64}) \*\//.exec(source)?.[1];
}

/** The bundle's own parameters, besides CommonJS's five (config/build.mjs names them). */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __fmImport, __fmImportMetaUrl, __fmBoot) {';

export function runScript(bundleFile: string, cacheFolder: string | undefined): void {
  const block = readingBlock();
  // ASCII (config/build.mjs): read as a one-byte string (a copy), with no UTF-8 decoding.
  const source = readWhole(bundleFile, block).toString('latin1');
  const hash = bundleHashOf(source);
  const id = hash && cacheFolder ? identityOf(hash) : undefined;
  // Into the same block: the source above is a copy of what was there.
  const cachedData = id && cacheFolder ? readCache(cacheFolder, id, block) : undefined;
  // Same line as the bundle's first: stack traces keep the bundle's line numbers.
  const script = new vm.Script(`${WRAPPER_HEAD}${source}\n})`, { filename: bundleFile, cachedData });
  const stale = cachedData === undefined || script.cachedDataRejected === true;
  let written = false;
  const hooks: BootHooks = {
    started() {
      if (!stale || written || !id || !cacheFolder) return;
      written = true;
      // After the "listening on" line is out, so that the line is not later for it.
      setImmediate(() => {
        let data: Buffer;
        try {
          data = script.createCachedData();
        } catch {
          return; // no cache this time: the next start compiles, and tries again
        }
        writeCache(cacheFolder, id, data);
      });
    },
  };
  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(
    module.exports,
    module.exports,
    createRequire(bundleFile),
    module,
    bundleFile,
    path.dirname(bundleFile),
    (specifier: string) => import(specifier),
    pathToFileURL(bundleFile).href,
    hooks,
  );
}
