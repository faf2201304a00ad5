/**
 * Builds dist/ once before the CLI tests run the built `botmesh` binary, when dist is missing or
 * older than any source file. JavaScript only (no .d.ts): a few seconds instead of a minute; the
 * release build (`npm run build`) makes the declarations. Vitest runs global setups whatever files
 * it selected, so this skips the build when the run's filters leave out every test/cli file.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { TestProject } from 'vitest/node'

const ROOT = join(import.meta.dirname, '..', '..')
const BUILT = join(ROOT, 'dist', 'cli', 'main.js')

export default async function setup(project: TestProject): Promise<void> {
  if (!cliTestsSelected(project)) return
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource(join(ROOT, 'src'))) return
  const { build } = await import('tsup')
  await build({ dts: false, silent: true })
}

/** Whether the run includes a test/cli file (vitest's CLI filters are substrings of the path). */
function cliTestsSelected(project: TestProject): boolean {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern
  if (!filters || filters.length === 0) return true
  const cliFiles = readdirSync(join(ROOT, 'test', 'cli')).map((name) => relative(ROOT, join(ROOT, 'test', 'cli', name)))
  return filters.some((filter) => cliFiles.some((file) => file.includes(filter.replace(/^\.\//, '')) || join(ROOT, file).includes(filter)))
}

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }
  return newest
}
