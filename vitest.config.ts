import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Generous: at load 20 (CI beside other work on 2 cores) a test that starts a child process or a
    // server takes many times its quiet-machine time. A timeout here is a hang detector, never a
    // performance assertion.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Most tests wait on timers, child processes and servers rather than the CPU: three files at a
    // time keep a 2-core machine busy (vitest's default would be one).
    // --expose-gc: the file-handle guard collects after each file to find handles nobody closed.
    poolOptions: { forks: { maxForks: 3, minForks: 1, execArgv: ['--expose-gc'] } },
    // quiet-persistence: the test Redis runs without persistence on purpose (see the file).
    setupFiles: ['test-utils/file-handle-guard.ts', 'test-utils/quiet-persistence.ts'],
    reporters: ['default'],
    globalSetup: ['test/cli/global-setup.ts'],
  },
})
