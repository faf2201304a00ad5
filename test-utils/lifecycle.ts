/** Per-test resources and their removal, the same way in every test file. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'

/**
 * A list of cleanups run after each test, last added first. `ignoreFailures`: for processes and
 * servers a test may already have killed (their cleanup then fails, and that is fine).
 */
export function useCleanups(options: { ignoreFailures?: boolean } = {}): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      if (options.ignoreFailures) await cleanup().catch(() => undefined)
      else await cleanup()
    }
  })
  return cleanups
}

/** A temp dir per call, removed after the file's tests. */
export function useTempDirs(prefix = 'botmesh-'): () => string {
  const dirs: string[] = []
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    dirs.push(dir)
    return dir
  }
}
