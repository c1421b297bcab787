import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Temporal runtime misbehaves in worker threads; forks give each test file its own process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
