#!/usr/bin/env node
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

// Node >= 22.1 can keep V8's compiled code of fm's modules between runs (Node 20 has no such
// API). The cache goes to the user's own cache folder, not the shared temporary folder Node
// would pick; Node checks each entry against the module's source and its own version.
if (module.enableCompileCache) {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
    module.enableCompileCache(path.join(base, 'fm', 'node-compile-cache'));
  } catch {
    // No home folder: run without the cache.
  }
}
await import('../dist/server/cli.js');
