import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // In CI the results are also written as JSON, so that .ci/run can print one plain summary line.
    reporters: process.env.VITEST_RESULTS_FILE ? ['default', ['json', { outputFile: process.env.VITEST_RESULTS_FILE }]] : ['default'],
  },
});
