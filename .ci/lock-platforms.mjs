#!/usr/bin/env node
// The registry mirror this project is developed against serves only some platform builds of
// packages that ship native binaries (Biome's darwin, win32, android and musl builds are
// missing), so `npm install` leaves them out of package-lock.json — and `npm ci` then refuses
// the lock as out of sync with package.json. This adds the missing optional platform entries
// with their os/cpu/libc fields, which is all `npm ci` needs to skip them on other platforms.
// Run it after any `npm install`; test/unit/lockfile.test.ts fails while an entry is missing.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));

// name suffix → [os, cpu, libc?]
const PLATFORM = {
  "android-arm64": ["android", "arm64"],
  "android-x64": ["android", "x64"],
  "darwin-arm64": ["darwin", "arm64"],
  "darwin-x64": ["darwin", "x64"],
  "linux-arm64": ["linux", "arm64", "glibc"],
  "linux-arm64-musl": ["linux", "arm64", "musl"],
  "linux-x64": ["linux", "x64", "glibc"],
  "linux-x64-musl": ["linux", "x64", "musl"],
  "win32-arm64": ["win32", "arm64"],
  "win32-x64": ["win32", "x64"],
};

let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!key.startsWith("node_modules/@biomejs/biome")) continue;
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    if (lock.packages[target]) continue;
    const suffix = name.replace(/^@biomejs\/cli-/, "");
    const platform = PLATFORM[suffix];
    if (!platform) throw new Error(`unknown platform of ${name}`);
    const [os, cpu, libc] = platform;
    lock.packages[target] = {
      version,
      cpu: [cpu],
      dev: entry.dev,
      ...(libc ? { libc: [libc] } : {}),
      license: entry.license,
      optional: true,
      os: [os],
      engines: entry.engines,
    };
    added++;
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
