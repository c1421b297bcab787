import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Temporal runtime misbehaves in worker threads; forks give each test file its own process.
    pool: 'forks',
    // One real Temporal dev server for the whole run (test/global-setup.ts); tests read its address
    // with inject('temporalAddress').
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
