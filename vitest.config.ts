import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each integration file starts its own fm server; browser files start Chromium.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
