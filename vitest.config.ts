import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

export default defineConfig({
  // src/cli/program/version.ts: the version is package.json's, as the build writes it in.
  define: { __OAUTHCTL_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most tests wait on sockets, child processes and timers, not the CPU: on a 2-core machine vitest's
    // default (cores - 1) runs the files one at a time, and the suite takes twice as long as with three.
    maxWorkers: 3,
    // In CI the results are also written as JSON, so that .ci/run can print one plain summary line.
    reporters: process.env.VITEST_RESULTS_FILE ? ['default', ['json', { outputFile: process.env.VITEST_RESULTS_FILE }]] : ['default'],
  },
});
