import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child-process tests run bin/vigil.js, which runs dist/: build it (incrementally) before any test.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores in CI: keep workers bounded so child-process e2e tests are not starved.
    maxWorkers: 2,
  },
});
