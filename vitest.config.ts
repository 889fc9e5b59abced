import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Rebuilds dist/ when a source is newer than the last build (bin/fm.js and dist/web are used).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // expect.poll gives up after 1 s by default: too short for a server round trip with bcrypt on a busy 2-core machine.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // Each integration file starts its own fm server; browser files start Chromium.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
