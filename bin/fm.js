#!/usr/bin/env node
// fm's server and CLI are one script run with V8's code cache of the last start (src/boot/).
await import('../dist/server/boot.js');
