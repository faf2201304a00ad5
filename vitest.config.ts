import { defineConfig } from 'vitest/config'
import { SLOW_TESTS, SlowFirst } from './test-utils/slow-first.js'

export default defineConfig({
  test: {
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
    // The slow project's files start first (test-utils/slow-first.ts): the longest ones must not be
    // the last to begin, and the unit files fill the forks beside them.
    sequence: { sequencer: SlowFirst },
    reporters: ['default'],
    // Two projects over one pool, so they run at the same time: `unit` (`npm run test:quick`, the
    // inner loop) and `slow` (crash matrices, SIGKILL and process tests, the CLI, replicas). See
    // docs/development.md.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...SLOW_TESTS],
          // quiet-persistence: the test Redis runs without persistence on purpose (see the file).
          setupFiles: ['test-utils/file-handle-guard.ts', 'test-utils/quiet-persistence.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: [...SLOW_TESTS],
          setupFiles: ['test-utils/file-handle-guard.ts', 'test-utils/quiet-persistence.ts'],
          // Builds dist/ for the CLI tests, all of which are in this project.
          globalSetup: ['test/cli/global-setup.ts'],
        },
      },
    ],
  },
})
