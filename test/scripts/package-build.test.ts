/**
 * The package as it is packed (issue 44): `prepack` builds dist/ unless a complete build is newer
 * than every source.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without declarations
import { builtFiles, staleBecause } from '../../scripts/prepack.mjs'
import { useTempDirs } from '../../test-utils/lifecycle.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>
  exports: Record<string, Record<string, string>>
}
const tempDir = useTempDirs('botmesh-package-')

describe('package.json', () => {
  it('builds before it packs, and checks npm publish --dry-run', () => {
    expect(PKG.scripts.prepack).toBe('node scripts/prepack.mjs')
    expect(PKG.scripts['check:package']).toContain('node scripts/check-publish.mjs')
  })
})

describe('prepack', () => {
  /** A package root with package.json's exports built (or not) and one source file, at these times. */
  function packageRoot(options: { built: boolean; sourceAt: number; builtAt: number }): string {
    const root = tempDir()
    writeFileSync(join(root, 'package.json'), JSON.stringify({ exports: PKG.exports }))
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src', 'index.ts'), '')
    utimesSync(join(root, 'package.json'), options.sourceAt, options.sourceAt)
    utimesSync(join(root, 'src', 'index.ts'), options.sourceAt, options.sourceAt)
    if (!options.built) return root
    for (const file of builtFiles(PKG) as string[]) {
      mkdirSync(dirname(join(root, file)), { recursive: true })
      writeFileSync(join(root, file), '')
      utimesSync(join(root, file), options.builtAt, options.builtAt)
    }
    return root
  }

  it('builds a fresh clone (no dist/) and a stale build; keeps a complete current build', () => {
    expect(staleBecause(packageRoot({ built: false, sourceAt: 1_000, builtAt: 0 }))).toMatch(/dist\/.* is missing/)
    expect(staleBecause(packageRoot({ built: true, sourceAt: 2_000, builtAt: 1_000 }))).toBe('a source is newer than the build')
    expect(staleBecause(packageRoot({ built: true, sourceAt: 1_000, builtAt: 2_000 }))).toBeUndefined()
  })
})
