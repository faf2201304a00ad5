/**
 * Which test files are slow (vitest.config.ts's `slow` project), and the order files start in.
 *
 * A file is slow when it waits on real time or real processes for most of a minute: crash matrices
 * on a server's clock, SIGKILL and power-loss runs, child processes (the CLI's binary, replicas, a
 * terminal), private servers. Everything else is the `unit` project, `npm run test:quick`, which
 * runs in about a minute. A new slow file matches one of these patterns or is added here.
 */
import type { TestSpecification } from 'vitest/node'
import { BaseSequencer } from 'vitest/node'

export const SLOW_TESTS: readonly string[] = [
  'test/cli/**/*.test.{ts,tsx}',
  'test/replicas/**/*.test.ts',
  'test/failover/**/*.test.ts',
  'test/scripts/**/*.test.ts',
  'test/bench/soak.test.ts',
  'test/readme/snippets.test.ts',
  'test/tui/terminal.test.ts',
  'test/tui/dashboard.test.tsx',
  'test/backends/*crash*.test.ts',
  'test/backends/*kill*.test.ts',
  'test/backends/*process*.test.ts',
  'test/backends/*power-loss*.test.ts',
  'test/backends/journal-blink.test.ts',
  'test/backends/journal-faults.test.ts',
  'test/backends/events-postgres*.test.ts',
  'test/backends/shared-leases.test.ts',
  'test/backends/disk-full.test.ts',
  'test/backends/redis-cluster.test.ts',
  'test/backends/encryption-at-rest.test.ts',
  'test/backends/replicas.test.ts',
  'test/backends/file-lock.test.ts',
]

/**
 * Vitest's order (files that failed last time first, then the longest last time, then the
 * largest), with every slow file ahead of every unit file: the longest files then start first and
 * run beside the short ones, instead of starting last and running alone at the end. A fresh clone
 * has no durations of a last run, and a crash matrix's file is small.
 */
export class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const slow = (file: TestSpecification) => file.project.name === 'slow'
    return [...sorted.filter(slow), ...sorted.filter((file) => !slow(file))]
  }
}
