/**
 * The package as it is packed (issue 44): `prepack` builds dist/ unless a complete build is newer
 * than every source, and the built declarations mark each import of an optional peer so a strict
 * consumer without that peer compiles. `.ci/packed-types` checks the tarball end to end.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without declarations
import { MARKER, markOptionalPeers, optionalPeers } from '../../scripts/optional-peer-types.mjs'
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
    expect(PKG.scripts.build).toBe('node scripts/lua-sources.mjs && tsup && node scripts/optional-peer-types.mjs')
    expect(PKG.scripts['check:package']).toContain('node scripts/check-publish.mjs')
  })
})

describe('optional peers in the declarations', () => {
  const peers = optionalPeers(PKG) as string[]

  it('are the optional peer dependencies, the store drivers among them', () => {
    expect(peers).toEqual(expect.arrayContaining(['better-sqlite3', 'ioredis', 'pg', 'grammy']))
  })

  it('get the marker above each import or export of one, once, and nothing else changes', () => {
    const text = [
      "import { Pool, QueryResult } from 'pg';",
      "import BetterSqlite3 from 'better-sqlite3';",
      'export { Redis } from "ioredis";',
      "type A = import('pg').Pool;",
      "import { Bot } from './bot.js';",
      "import { render } from 'ink';",
      "import { x } from 'pg-boss';",
    ].join('\n')
    const marked = markOptionalPeers(text, peers) as string
    const lines = marked.split('\n')
    expect(lines.filter((line) => line === MARKER)).toHaveLength(4)
    for (const peer of ["'pg';", "'better-sqlite3';", '"ioredis";', "import('pg')"]) {
      const index = lines.findIndex((line) => line.includes(peer))
      expect(lines[index - 1]).toBe(MARKER)
    }
    expect(lines[lines.findIndex((line) => line.includes("'pg-boss'")) - 1]).not.toBe(MARKER)
    expect(markOptionalPeers(marked, peers)).toBe(marked)
  })
})

describe('prepack', () => {
  /** A package root with package.json's exports built (or not) and one source file, at these times. */
  function packageRoot(options: { built: boolean; marked: boolean; sourceAt: number; builtAt: number }): string {
    const root = tempDir()
    writeFileSync(join(root, 'package.json'), JSON.stringify({ exports: PKG.exports }))
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src', 'index.ts'), '')
    utimesSync(join(root, 'package.json'), options.sourceAt, options.sourceAt)
    utimesSync(join(root, 'src', 'index.ts'), options.sourceAt, options.sourceAt)
    if (!options.built) return root
    for (const file of builtFiles(PKG) as string[]) {
      mkdirSync(dirname(join(root, file)), { recursive: true })
      writeFileSync(join(root, file), file.endsWith('sqlite/index.d.ts') && options.marked ? MARKER : '')
      utimesSync(join(root, file), options.builtAt, options.builtAt)
    }
    return root
  }

  it('builds a fresh clone (no dist/), a stale build and an unmarked one; keeps a complete current build', () => {
    expect(staleBecause(packageRoot({ built: false, marked: false, sourceAt: 1_000, builtAt: 0 }))).toMatch(/dist\/.* is missing/)
    expect(staleBecause(packageRoot({ built: true, marked: true, sourceAt: 2_000, builtAt: 1_000 }))).toBe(
      'a source is newer than the build',
    )
    expect(staleBecause(packageRoot({ built: true, marked: false, sourceAt: 1_000, builtAt: 2_000 }))).toMatch(/not marked/)
    expect(staleBecause(packageRoot({ built: true, marked: true, sourceAt: 1_000, builtAt: 2_000 }))).toBeUndefined()
  })
})
