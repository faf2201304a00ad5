import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most tests wait on timers, child processes and servers rather than the CPU: three files at a
    // time keep a 2-core machine busy (vitest's default would be one).
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    reporters: ['default'],
    globalSetup: ['test/cli/global-setup.ts'],
  },
})
